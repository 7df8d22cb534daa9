/** Below this width the sessions sidebar is hidden by default and, when shown, lays over the chat. */
export const NARROW_SIDEBAR = '(max-width: 760px)';

/** Whether the window is that narrow now (false where there is no media query, e.g. in tests). */
export function isNarrow(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia(NARROW_SIDEBAR).matches;
}
