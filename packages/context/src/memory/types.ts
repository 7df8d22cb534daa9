import type {
  CandidateReason,
  ChatMessage,
  FactCategory,
  MemorySnapshot,
  FactSource,
  MemoryCandidate,
  MemoryFact,
  ProjectFactKind,
  RefreshMode,
} from '@threadline/protocol';

/** Where a draft's text came from; evaluation trusts these differently. */
export type DraftOrigin = 'assistant' | 'command' | 'tool_output' | 'user';

/** A possible fact found in a message, before evaluation. */
export interface MemoryDraft {
  category: FactCategory;
  content: string;
  source: FactSource;
  origin: DraftOrigin;
  /** The line the draft came from looked like an error/traceback (not a missing path). */
  errorLine?: boolean;
  /** The line the draft came from looked like a runtime log line (timestamp, level). */
  logLine?: boolean;
  /** A verified action backed by a success marker of its tool result. */
  confirmed?: boolean;
  /** The artifact is a file the agent wrote (sed -i, cat >, editor create…). */
  written?: boolean;
  /** A successful existence probe (`ls`, `test -d`, `Test-Path`…) of this path: its first line. */
  validatedBy?: string;
  /** The line was a login shell's start-up output (profile, version manager): noise. */
  startupNoise?: boolean;
  /** Index of the source message in the parsed list: evidence counts messages, not mentions. */
  messageIndex?: number;
}

export interface DraftDecision {
  draft: MemoryDraft;
  decision: 'accepted' | 'rejected';
  reason: CandidateReason;
}

export interface RefreshInput {
  sessionId: string;
  /** Messages to parse. With no prior facts the whole history is parsed; otherwise see `recent`. */
  messages: ChatMessage[];
  /** Current facts of the session (any status). */
  facts?: MemoryFact[];
  /**
   * Parse only the last N messages. Default: the whole list when `facts` is empty (first refresh,
   * checkpoint of a hidden range), else the latest step (see `latestStepStart`).
   */
  recent?: number;
  now: number;
  newId: () => string;
  /** Why the refresh ran (shown in debug notices): e.g. `turn`, `checkpoint`, `manual`. */
  reason?: string;
  /** The session's stored candidate rows, oldest first (for the 800-row cap of `sessionCandidates`). */
  candidates?: readonly MemoryCandidate[];
  /** The session's stored snapshots, oldest first (for the 100-row cap of `snapshots`). */
  snapshots?: readonly MemorySnapshot[];
  /**
   * Find candidates for the project's memory in the parsed messages (`RefreshResult.promotions`);
   * `previous`: the message just before them (the question a reply in them may answer).
   */
  promote?: { previous: ChatMessage | null };
}

export interface RefreshResult {
  /** The next full list of facts (replaces the input list), at most MAX_AUTO_FACTS (120) auto facts. */
  facts: MemoryFact[];
  /** New candidate rows of this refresh (accepted and rejected), capped at MAX_CANDIDATES. */
  candidates: MemoryCandidate[];
  /**
   * The session's candidate rows after this refresh: the input's `candidates` plus the new ones,
   * the newest MAX_CANDIDATES (800) kept. What the store should hold.
   */
  sessionCandidates: MemoryCandidate[];
  /** The input's `snapshots`, the newest MAX_SNAPSHOTS (100) kept. */
  snapshots: MemorySnapshot[];
  mode: RefreshMode;
  reason: string;
  acceptedCount: number;
  rejectedCount: number;
  prunedCount: number;
  /** Active or pinned facts after the refresh. */
  factCount: number;
  rejectedReasonBreakdown: Record<string, number>;
  /** Ids of facts the refresh retired (status changed) or dropped (the auto-fact cap). */
  prunedIds: string[];
  /** Net change of the active facts (see `memoryDelta`): what the user would call "memory changed". */
  net: MemoryDelta;
  /** Candidates for the project's memory the parsed messages verified (only with `promote`). */
  promotions: ProjectPromotion[];
}

/** Active facts that appeared, changed their content, or left the active set. */
export interface MemoryDelta {
  added: number;
  updated: number;
  retired: number;
}

/** A candidate for project memory as the engine found it; the runtime adds the session and time. */
export interface ProjectPromotion {
  kind: ProjectFactKind;
  /** A command as it ran, a path as the call named it (relative to the session's folder, or absolute), the user's sentence. */
  content: string;
  /** A command's purpose; `correction` for an instruction that corrects; else null. */
  detail: string | null;
  /** What a correction rules out (lowercased terms): project facts using them are superseded. */
  negates?: string[];
  evidence: {
    /** The message holding the verifying call, or the user's message. */
    messageId: string | null;
    toolCallId: string | null;
    /** `$ pnpm test → exit 0`, `read_file src/app.ts`, or the user's words. */
    verifiedBy: string;
  };
}
