import { buildMemoryBlock } from '@threadline/context';
import {
  EMPTY_USAGE_TOTALS,
  errorMessage,
  type AppEvent,
  type HelperSummary,
  type ProviderProfile,
  type UsageTotals,
} from '@threadline/protocol';
import type { StoredHelper } from '@threadline/store';
import type { ProviderClient } from '../provider/client';
import { profileForModel } from '../turn/budget';
import { emitCost } from '../turn/cost';
import type { TurnDeps } from '../turn/deps';
import { refreshSessionMemory } from '../turn/memory';
import { runTurn } from '../turn/runTurn';
import type { Turn } from '../turn/turn';
import { HelperTurn } from './helperTurn';
import {
  findingsOf,
  outcomeOf,
  reportSection,
  sectionTokens,
  workMessages,
  type HelperFindings,
  type HelperOutcome,
} from './report';
import { helperPrompt, helperRegistry, type HelperPlan } from './roles';

/** Builds the client of a helper whose model is not its parent's (the parent's profile, that model). */
export type HelperClients = (profile: ProviderProfile) => ProviderClient;

const NO_FINDINGS: HelperFindings = { read: [], changed: [], verified: [] };

/**
 * One helper of a delegate call, from queued to ended: its turn (a HelperTurn run by runTurn in
 * its own session), what its row shows while it runs (`helper.updated` to the parent's renderers),
 * and at its end its outcome, its findings merged into the parent's memory, its report section.
 */
export class HelperRun {
  /** Its part of the delegate call's result, once it ended. */
  section = '';
  private row: StoredHelper;
  /** Its tool calls by name, counted when requested (a call in flight counts). */
  private readonly calls = new Map<string, number>();
  private readonly seen = new Set<string>();
  private usage: UsageTotals = EMPTY_USAGE_TOTALS;

  constructor(
    private readonly parent: Turn,
    row: StoredHelper,
    private readonly plan: HelperPlan,
    /** How many tasks the call has (for "Helper 2 of 3"). */
    private readonly of: number,
    private readonly clients: HelperClients,
  ) {
    this.row = row;
  }

  get id(): string {
    return this.row.id;
  }

  get status(): StoredHelper['status'] {
    return this.row.status;
  }

  summary(): HelperSummary {
    const { row } = this;
    return {
      ...row,
      toolCalls: [...this.calls].map(([name, count]) => ({ name, count })),
      usage: this.usage,
    };
  }

  /** Tells the parent's renderers where it stands. */
  announce(): void {
    this.parent.deps.emit({ type: 'helper.updated', sessionId: this.parent.sessionId, helper: this.summary() });
  }

  /** Runs it to its end (never throws); a parent already stopped stops it before it starts. */
  async run(): Promise<void> {
    const { parent } = this;
    const { deps } = parent;
    if (parent.signal.aborted) return this.end({ status: 'stopped', report: null, error: null }, NO_FINDINGS);
    this.row = deps.store.helpers.started(this.id);
    this.announce();
    const abort = new AbortController();
    const stop = (): void => abort.abort();
    parent.signal.addEventListener('abort', stop, { once: true });
    // Its own runtime: chat.cancel of its id stops it alone, chat.approve answers its cards.
    const rt = deps.sessionState(this.id);
    rt.workStarted(abort);
    // Its whole run, to its row's end: what idle, delete and dispose wait for (a Stop does not
    // wait for it: the parent's turn ends at once, the helper when it sees the signal).
    const whole = this.turnAndEnd(abort.signal);
    rt.workRuns(whole);
    try {
      await whole;
    } finally {
      parent.signal.removeEventListener('abort', stop);
      rt.workEnded();
    }
  }

  /** Its turn, then its end: the outcome, its findings merged into the parent's memory, its row. */
  private async turnAndEnd(signal: AbortSignal): Promise<void> {
    const { parent, plan } = this;
    const { deps } = parent;
    let crashed: string | null = null;
    try {
      const turn = this.turn(signal);
      deps.sessions.commit(
        this.id,
        { messages: [{ role: 'user', content: plan.task }] },
        { model: turn.profile.model },
      );
      // Never a manual compaction, whatever the task says: it is not the user's message.
      await runTurn(turn, { text: plan.task, manual: null });
    } catch (err) {
      crashed = errorMessage(err);
    }
    try {
      const history = deps.sessions.get(this.id).history;
      const outcome: HelperOutcome = crashed
        ? { status: 'failed', report: null, error: crashed }
        : outcomeOf(history, signal.aborted);
      const messages = workMessages(history);
      // What it verified goes into the parent's memory by the memory engine's rules: no summary call.
      if (messages.length > 0) await refreshSessionMemory(parent, { at: 'committed', messages });
      this.end(outcome, findingsOf(this.id, messages, deps.now(), deps.newId));
    } catch (err) {
      // Its session went meanwhile (deleted), or the store failed: the call still gets its section.
      this.section = reportSection(
        plan,
        this.of,
        { status: 'failed', report: null, error: errorMessage(err) },
        NO_FINDINGS,
      );
    }
  }

  /** Its turn: its own session and budget, the parent's boundary, its own deps view (tools, events). */
  private turn(signal: AbortSignal): HelperTurn {
    const { parent, plan } = this;
    const profile = profileForModel(parent.profile, plan.model);
    const registry = helperRegistry(parent, plan);
    const deps: TurnDeps = {
      ...parent.deps,
      // Its tools, for the requests and the budget alike.
      toolsFor: (sessionId) => (sessionId === this.id ? registry : parent.deps.toolsFor(sessionId)),
      emit: (e) => {
        parent.deps.emit(e);
        if ('sessionId' in e && e.sessionId === this.id) this.observe(e);
      },
    };
    const session = deps.store.sessions.get(this.id);
    if (!session) throw new Error(`The helper's session ${this.id} is gone.`);
    return new HelperTurn(parent, {
      deps,
      session,
      profile,
      client: plan.model === parent.profile.model ? parent.client : this.clients(profile),
      signal,
      scope: {
        parentSessionId: parent.sessionId,
        toolCallId: this.row.toolCallId,
        role: plan.role,
        prompt: helperPrompt(plan),
        // The parent's facts as they are now, read-only: the same text for all its requests.
        memoryBlock: buildMemoryBlock(deps.sessions.get(parent.sessionId).facts),
        readOnlyCommands: plan.readOnlyCommands,
      },
    });
  }

  /** Its own session's events: the tools it calls and the tokens it spends, for its row and the parent's cost. */
  private observe(e: AppEvent): void {
    if (e.type === 'tool.requested' && !this.seen.has(e.toolCall.id)) {
      this.seen.add(e.toolCall.id);
      const name = e.toolCall.function.name;
      this.calls.set(name, (this.calls.get(name) ?? 0) + 1);
      this.announce();
    } else if (e.type === 'usage.recorded') {
      this.usage = e.cost.total;
      this.announce();
      this.parentCostChanged();
    }
  }

  /** The parent's cost counts its helpers apart: read again at its next cost event, sent now. */
  private parentCostChanged(): void {
    const { deps, sessionId } = this.parent;
    deps.sessionState(sessionId).costChanged();
    emitCost(deps, sessionId);
  }

  private end(outcome: HelperOutcome, findings: HelperFindings): void {
    const { deps, profile } = this.parent;
    this.section = reportSection(this.plan, this.of, outcome, findings);
    this.row = deps.store.helpers.finish(this.id, {
      ...outcome,
      returnedTokens: sectionTokens(this.section, profile.model),
    });
    this.announce();
    this.parentCostChanged();
  }
}
