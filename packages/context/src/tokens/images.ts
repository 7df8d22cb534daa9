/**
 * An image's prompt tokens by OpenAI's documented rule for `detail: high` (the default "auto"
 * picks it for large images): fit in 2048×2048, scale the shortest side down to 768, then 170
 * tokens per 512 px tile plus 85. Other providers count differently; the calibration of the
 * budget (turn/budget.ts) corrects for what each one reports.
 */
export function imageTokens(width: number, height: number): number {
  let w = Math.max(1, width);
  let h = Math.max(1, height);
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shrink = Math.min(1, 768 / Math.min(w, h));
  w *= shrink;
  h *= shrink;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}
