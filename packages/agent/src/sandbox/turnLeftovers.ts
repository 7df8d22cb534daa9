import {
  errorMessage,
  VISIBLE_TO_ALL,
  type AppEvent,
  type CheckpointNoticeMeta,
  type HeldFile,
  type StoredMessage,
} from '@threadline/protocol';
import type { NewMessage } from '@threadline/store';
import type { LeftoverHooks } from './commandGuard';
import type { HeldFiles } from './heldFiles';
import type { Leftover } from './leftovers';

/** What a turn's leftovers use of the runtime (the turn's deps satisfy it). */
export interface LeftoverDeps {
  held?: HeldFiles | null;
  sessions: { append(sessionId: string, msgs: NewMessage[]): StoredMessage[] };
  emit: (e: AppEvent) => void;
}

/**
 * One turn's leftovers (issue 34): what its sandboxed commands left that makes code run later is
 * held at once, or, for what the turn's later commands use (an install's programs, a new
 * package.json, a virtualenv), when the turn ends; the model then reads a note saying so.
 */
export class TurnLeftovers implements LeftoverHooks {
  private readonly later = new Map<string, Map<string, Leftover>>();

  constructor(
    private readonly deps: LeftoverDeps,
    private readonly held: HeldFiles,
    private readonly sessionId: string,
  ) {}

  get stampDir(): string {
    return this.held.stampDir;
  }

  get skip(): readonly string[] {
    return this.held.skip;
  }

  holdNow(folder: string, items: readonly Leftover[]): Promise<HeldFile[]> {
    return this.held.hold(this.sessionId, folder, items);
  }

  holdAtTurnEnd(folder: string, items: readonly Leftover[]): void {
    const byPath = this.later.get(folder) ?? new Map<string, Leftover>();
    for (const l of items) byPath.set(l.path, l);
    this.later.set(folder, byPath);
  }

  pending(): HeldFile[] {
    return this.held.list(this.sessionId);
  }

  /** At the end of the turn (whatever its outcome, before its checkpoint's last snapshot). */
  async finish(): Promise<void> {
    const held: HeldFile[] = [];
    for (const [folder, byPath] of this.later) {
      // A folder held whole covers what was noted inside it.
      const items = [...byPath.values()].sort((a, b) => a.path.length - b.path.length);
      const kept = items.filter((l, i) => !items.slice(0, i).some((p) => l.path.startsWith(`${p.path}/`)));
      try {
        held.push(...(await this.held.hold(this.sessionId, folder, kept)));
      } catch (err) {
        this.deps.emit({
          type: 'error',
          sessionId: this.sessionId,
          code: 'internal',
          message: `Holding what the turn's commands left failed: ${errorMessage(err)}`,
        });
      }
    }
    this.later.clear();
    if (held.length === 0) return;
    const meta: CheckpointNoticeMeta = { action: 'held', files: held.map((f) => f.path) };
    const listed = held
      .slice(0, 30)
      .map((f) => f.path)
      .join(', ');
    const more = held.length > 30 ? ` and ${held.length - 30} more` : '';
    const [message] = this.deps.sessions.append(this.sessionId, [
      {
        role: 'user',
        content: `At the end of the turn, files its commands left that run code when the project's commands run were taken out of the folder and are held for the user: ${listed}${more}. They are not in the folder until the user keeps them.`,
        kind: 'checkpoint_notice',
        visibility: VISIBLE_TO_ALL,
        meta,
      },
    ]);
    this.deps.emit({ type: 'notice', sessionId: this.sessionId, message });
  }
}
