/**
 * A size in bytes as people read it: `44 B`, `1.5 KB`, `230 KB`, `4.2 MB` (1 KB = 1024 B; one
 * decimal below 10 of a unit). Units are the same in every language; the number is the
 * language's own (`1,5 KB` where the comma is the decimal mark).
 */
export function formatBytes(n: number, lang?: string): string {
  const units = ['B', 'KB', 'MB', 'GB'] as const;
  let value = Math.max(0, n);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  const shown = Number(value.toFixed(digits)).toLocaleString(lang, { maximumFractionDigits: digits });
  return `${shown} ${units[unit]}`;
}
