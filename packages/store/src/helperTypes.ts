import type { HelperStatus } from '@threadline/protocol';

/** One task of a delegate call, as the runtime stores it when the call starts. */
export interface NewHelper {
  /** The parent's delegate call. */
  toolCallId: string;
  /** Its place among the call's tasks (0-based). */
  index: number;
  task: string;
  role: string;
  model: string;
  /** The tools it is given. */
  tools: string[];
}

/** A helper's row: its session (`id`), what it was asked, where it stands. */
export interface StoredHelper extends NewHelper {
  /** The helper's own session. */
  id: string;
  parentSessionId: string;
  status: HelperStatus;
  report: string | null;
  error: string | null;
  returnedTokens: number | null;
  createdAt: number;
  endedAt: number | null;
}

/** The tools a helper called, by name, in the order first called. */
export type HelperToolCalls = { name: string; count: number }[];

/** How a helper ended (HelpersRepo.finish). */
export interface HelperEnd {
  status: Exclude<HelperStatus, 'queued' | 'running'>;
  report: string | null;
  error: string | null;
  returnedTokens: number | null;
}

/**
 * Helpers (issue 39): each a session of its own under its parent session (hidden from the list,
 * deleted with the parent), with a row saying what it was asked and how it ended.
 */
export interface HelpersRepo {
  /**
   * The helpers of one delegate call, queued: a session each (titled after its task, working in
   * `folder`) and its row, in one transaction.
   */
  create(parentSessionId: string, folder: string, helpers: readonly NewHelper[]): StoredHelper[];
  get(id: string): StoredHelper | null;
  /** A session's helpers, oldest call first, then by their place in it. */
  list(parentSessionId: string): StoredHelper[];
  /** The tools each helper of a session called (from their messages), by helper id. */
  toolCalls(parentSessionId: string): Map<string, HelperToolCalls>;
  /** Queued → running. */
  started(id: string): StoredHelper;
  finish(id: string, end: HelperEnd): StoredHelper;
  /**
   * At start: helpers still queued or running belong to a run that stopped (a crash): marked
   * interrupted (what they stored stays), and returned.
   */
  interruptOpen(): StoredHelper[];
}
