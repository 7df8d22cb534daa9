/** Caps and defaults of CFPM memory. Every number is a default the runtime may override. */
export const MAX_AUTO_FACTS = 120;
export const MAX_CANDIDATES = 800;
export const MAX_SNAPSHOTS = 100;

export const CONFIDENCE_USER = 1.0;
export const CONFIDENCE_AUTO = 0.7;
export const CONFIDENCE_INVALID_PATH = 0.9;
export const CONFIDENCE_MIN = 0.05;
export const CONFIDENCE_MAX = 1.0;

/** Injection block: at most this many items per section, each cut to this many chars. */
export const BLOCK_MAX_ITEMS = 8;
export const BLOCK_MAX_ITEM_CHARS = 220;

/** Checkpoint snapshot: larger, because it replaces a whole hidden range once, not every turn. */
export const CHECKPOINT_MAX_ITEMS = 40;
export const CHECKPOINT_MAX_ITEM_CHARS = 300;

/** Drafts shorter than this (after trimming) are `too_short`; longer than the max are `too_long`. */
export const MIN_DRAFT_CHARS = 3;
export const MIN_TEXT_DRAFT_CHARS = 8;
export const MAX_DRAFT_CHARS = 400;

/** With prior facts and no user message or tool call to start a step at, parse this many trailing messages. */
export const DEFAULT_RECENT_MESSAGES = 12;

/** Artifacts taken from one tool output at most (a `find` listing must not flood memory). */
export const MAX_ARTIFACTS_PER_TOOL_OUTPUT = 6;

export const MEMORY_BLOCK_HEADER = '[CFPM_RUNTIME_MEMORY_V1]';
export const CHECKPOINT_HEADER = '[CFPM_MEMORY_V1]';
