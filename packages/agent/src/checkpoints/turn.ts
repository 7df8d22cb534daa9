import {
  errorMessage,
  USER_ONLY,
  type CheckpointNoticeMeta,
  type CheckpointSkipped,
  type StoredMessage,
} from '@threadline/protocol';
import type { TurnDeps } from '../turn/deps';

/** The sentence of the once-per-session notice where git is missing (the renderer words it itself). */
export const GIT_MISSING_TEXT =
  'Checkpoints are off: git is not installed, so the file changes of this session cannot be undone.';

/**
 * One turn's checkpoint: the first tool that may write (any tool not marked read-only: a file
 * tool, the shell, every MCP tool) snapshots the folder before it runs; the end of the turn
 * snapshots it again and records what changed. A turn that writes nothing takes no snapshot.
 */
export class TurnCheckpoint {
  private before: Promise<{ folder: string; commit: string; skipped: CheckpointSkipped } | null> | null = null;

  constructor(
    private readonly deps: Pick<TurnDeps, 'checkpoints' | 'sessions' | 'emit'>,
    private readonly sessionId: string,
  ) {}

  /** Before a tool that may write runs: the first call takes the snapshot, the others wait for it. */
  async beforeWrite(folder: string): Promise<void> {
    this.before ??= this.take(folder);
    await this.before;
  }

  private async take(folder: string): Promise<{ folder: string; commit: string; skipped: CheckpointSkipped } | null> {
    const svc = this.deps.checkpoints;
    if (!svc) return null;
    if (!(await svc.available())) {
      sayGitMissing(this.deps, this.sessionId);
      return null;
    }
    try {
      return { folder, ...(await svc.snapshot(folder, 'before turn')) };
    } catch (err) {
      // The tool still runs: a failed snapshot only means this turn cannot be undone.
      this.deps.emit({
        type: 'error',
        sessionId: this.sessionId,
        code: 'internal',
        message: `Checkpoint before the turn failed: ${errorMessage(err)}`,
      });
      return null;
    }
  }

  /** At the end of the turn (whatever its outcome): the second snapshot and the row. */
  async finish(): Promise<void> {
    const svc = this.deps.checkpoints;
    const before = this.before ? await this.before : null;
    if (!svc || !before) return;
    const { history } = this.deps.sessions.get(this.sessionId);
    const lastOf = (test: (m: StoredMessage) => boolean): string | null =>
      history.findLast(test)?.id ?? history.at(-1)?.id ?? null;
    try {
      await svc.record({
        sessionId: this.sessionId,
        folder: before.folder,
        before,
        anchorId: lastOf((m) => m.role === 'assistant'),
        userMessageId: lastOf((m) => m.role === 'user' && m.kind === 'normal'),
      });
    } catch (err) {
      this.deps.emit({
        type: 'error',
        sessionId: this.sessionId,
        code: 'internal',
        message: `Checkpoint after the turn failed: ${errorMessage(err)}`,
      });
    }
  }
}

/** Once per session (its history remembers): git is missing, so no checkpoint is taken. */
function sayGitMissing(deps: Pick<TurnDeps, 'sessions' | 'emit'>, sessionId: string): void {
  const said = deps.sessions
    .get(sessionId)
    .history.some(
      (m) =>
        m.kind === 'checkpoint_notice' &&
        (m.meta as Partial<CheckpointNoticeMeta> | undefined)?.action === 'unavailable',
    );
  if (said) return;
  const meta: CheckpointNoticeMeta = { action: 'unavailable', files: [] };
  const [message] = deps.sessions.append(sessionId, [
    { role: 'user', content: GIT_MISSING_TEXT, kind: 'checkpoint_notice', visibility: USER_ONLY, meta },
  ]);
  deps.emit({ type: 'notice', sessionId, message });
}
