import type { Holds } from './holds';
import type { PromptCache } from './promptCache';
import type { ReplyBook } from './rules';
import type { LocalServerState } from './localServers';
import type { ErrorStyle, RecordedRequest } from './types';

/** What one fake server holds between requests: its script, what it received, its settings. */
export interface ServerState {
  book: ReplyBook;
  requests: RecordedRequest[];
  contextWindow: number | null;
  errorStyle: ErrorStyle;
  chatCount: number;
  models: string[];
  noVisionModels: string[];
  /** Prefixes of every request answered, for the cached tokens of the next (promptCache.ts). */
  cache: PromptCache;
  /** Refuse message shapes strict providers refuse (strict.ts). */
  strict: boolean;
  /** A local model server's own endpoints and window (localServers.ts), or null. */
  local: LocalServerState | null;
  /** Requests a test keeps waiting (FakeLlm.hold). */
  holds: Holds;
  /** Chat requests received and not yet answered or dropped. */
  inFlight: number;
}
