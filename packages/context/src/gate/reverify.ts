/** Does the user's latest message ask to look again rather than trust memory? */
const REVERIFY_PATTERNS: RegExp[] = [
  /\b(?:verify|check|confirm|look|find|search|scan|test)\b[\w\s,'-]{0,20}\bagain\b/i,
  /\bre-?(?:verify|check|confirm|scan|discover|detect|locate|validate|examine|inspect)(?:s|ed|ing)?\b/i,
  /\bdouble[- ]?check\b/i,
  /\b(?:don'?t|do not|never)\s+(?:use|trust|rely on)\b.{0,30}\b(?:memory|remembered|cached|cache|previous|earlier|old)\b/i,
  /\bfrom scratch\b/i,
  /\bfresh (?:look|check)\b/i,
  /\b(?:check|look|verify|search|scan|find|confirm)\b[\w\s,'-]{0,20}\b(?:once more|one more time)\b/i,
  /重新(?:验证|检查|确认|查找|定位|扫描|核实|获取|探测|查看)/,
  /再(?:次)?(?:验证|检查|确认|核实|查一下|看一下|找一下)/,
  // 重新找 (find it again), 再查看一次 / 再查一次 / 再找一遍 (look once more)
  /重新(?:找|查|看)/,
  /再(?:次)?(?:查看|查|找|看)(?:一(?:次|遍|下))/,
  /(?:不要|别|不用)(?:用|使用|相信|依赖).{0,6}(?:记忆|缓存|之前|以前)/,
  /核实一下|复查/,
];

export function asksToReverify(message: string | null | undefined): boolean {
  if (typeof message !== 'string' || message.trim() === '') return false;
  return REVERIFY_PATTERNS.some((p) => p.test(message));
}
