import type { AppState, ChatSessionState, CheckpointSessionState, ContextSessionState, SessionState } from './types';

/** The chat slice's fields of a session nothing is known of yet. */
export const CHAT_SESSION: Readonly<ChatSessionState> = {
  messages: undefined,
  busy: false,
  queued: [],
  error: null,
  retrying: null,
  liveEpoch: 0,
  rules: undefined,
  reloadAfterTurn: false,
};

/** The context slice's fields of a session nothing is known of yet. */
export const CONTEXT_SESSION: Readonly<ContextSessionState> = {
  usage: undefined,
  compactions: undefined,
  compacting: false,
  liveCompaction: null,
  facts: undefined,
  candidates: undefined,
  project: undefined,
  cost: undefined,
};

/** The checkpoint slice's fields of a session nothing is known of yet. */
export const CHECKPOINT_SESSION: Readonly<CheckpointSessionState> = {
  checkpoints: undefined,
  held: undefined,
};

/** A session nothing is known of yet (also what a selector reads for an unknown id). */
export const EMPTY_SESSION: Readonly<SessionState> = { ...CHAT_SESSION, ...CONTEXT_SESSION, ...CHECKPOINT_SESSION };

/** The state of one session (the empty one when none is kept). */
export const sessionOf = (s: Pick<AppState, 'bySession'>, id: string): SessionState => s.bySession[id] ?? EMPTY_SESSION;
