/** Below this width the sessions sidebar is hidden by default and, when shown, lays over the chat. */
export const NARROW_SIDEBAR = '(max-width: 760px)';
