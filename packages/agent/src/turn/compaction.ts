import {
  buildPrefixSummaryRequestMessages,
  buildSummaryRequestMessages,
  compactOffThread,
  countMessageTokens,
  dryRunSummarizer,
  isContextLimitError,
  locateHiddenRange,
  pairSafeEnd,
  type CompactInput,
  type CompactResult,
  type SummarizeRequest,
  type View,
} from '@threadline/context';
import type { ChatMessage, CompactionRecord, ProviderProfile, Settings, Trigger } from '@threadline/protocol';
import type { ProviderClient } from '../provider/client';
import type { FunctionToolSpec } from '../provider/types';
import type { TurnDeps } from './deps';
import { effectiveWindow, tokenBudget, type TokenBudget } from './budget';
import { emitCost, recordCall } from './cost';
import { persistCompactionNotice } from './notices';
import { buildSessionView, viewTokensAfter, type SessionView } from './view';
import { settleCounts } from '../session/counting';
import { emitSession } from './turn';
import type { SessionWork } from './sessionWork';

/** A compaction computed but not stored: the store applies it, the preview only shows it. */
export type CompactionPlan = CompactResult;

export interface CompactionRequest {
  deps: TurnDeps;
  sessionId: string;
  settings: Settings;
  profile: ProviderProfile;
  client: ProviderClient;
  trigger: Trigger;
  instructions: string | null;
  targetTokens: number | null;
  signal?: AbortSignal;
  /** Percent of the window in use that set it off (auto), shown while it runs. */
  percent?: number | null;
  /** The ids of the summary calls made so far (turn/cost.ts), linked to the record when applied. */
  summaryCalls?: number[];
}

/** The reason of a compaction the user stopped (chat.cancel): not a failure, nothing applied. */
export const CANCELLED_REASON = 'cancelled';

export interface CompactionOutcome {
  ok: boolean;
  record: CompactionRecord | null;
  reason: string | null;
  plan: CompactionPlan | null;
}

/**
 * The summarizer the engine calls: one non-streaming request, on the cheaper model when set. Its
 * tokens are stored as a summary call; the compaction links them to its record once it exists.
 */
export function summarizerFor(
  req: Pick<CompactionRequest, 'deps' | 'sessionId' | 'profile' | 'client' | 'signal' | 'summaryCalls'>,
) {
  const model = req.profile.compactionModel ?? req.profile.model;
  return async (messages: ChatMessage[], tools?: FunctionToolSpec[]): Promise<string> =>
    req.client.complete({
      messages,
      tools,
      model: req.profile.compactionModel ?? undefined,
      signal: req.signal,
      onUsage: (usage) => {
        const id = recordCall(req.deps, {
          sessionId: req.sessionId,
          profile: req.profile,
          model,
          kind: 'summary',
          usage,
        });
        req.summaryCalls?.push(id);
      },
    });
}

/** The share of the window a summary request's cached prefix leaves unused, for the estimate's error. */
const PREFIX_MARGIN = 0.05;

/**
 * The engine's summarizer. When the summary runs on the conversation's own model, the request is
 * the conversation as the model last saw it (same tools, same messages) — as far as the window
 * leaves room for the instruction and the note, and at least through the last hidden message —
 * plus the instruction, so the provider reads it from its prompt cache. Otherwise (another
 * compaction model, a recovery from an over-long request, elided tool outputs, no room even for
 * the hidden range) a fresh request with the transcript quoted.
 */
function summarizeFor(
  req: CompactionRequest,
  view: View | undefined,
  window: number,
): (r: SummarizeRequest) => Promise<string> {
  const summarize = summarizerFor(req);
  const sameModel = !req.profile.compactionModel || req.profile.compactionModel === req.profile.model;
  // The provider found the prefix too long after all (our estimate was off): fresh requests only.
  let overflowed = false;
  return async (r) => {
    const at =
      view && sameModel && !overflowed && req.trigger !== 'recovery' ? locateHiddenRange(r, view.messages) : null;
    if (view && at) {
      // The instruction is about as long whichever messages follow it: counted on the full prefix.
      const full = buildPrefixSummaryRequestMessages(r, view.messages);
      // Less a margin for the estimate (its calibration is still being learned early in a session):
      // a prefix the provider finds too long costs a refused request and a second call.
      const margin = Math.ceil(window * PREFIX_MARGIN);
      const room =
        window - margin - r.maxSummaryTokens - (full ? countMessageTokens(full.at(-1)!, req.profile.model) : window);
      let used = 0;
      let end = 0;
      for (; end < view.entries.length && used + view.entries[end]!.tokens <= room; end++)
        used += view.entries[end]!.tokens;
      // Never between a call and its results (a compaction between tool calls, a large result):
      // the prefix ends before the call, as a strict provider refuses a call without its results.
      end = pairSafeEnd(view.messages, end);
      const prefixed = end > at.last ? buildPrefixSummaryRequestMessages(r, view.messages.slice(0, end)) : null;
      if (prefixed) {
        let text = '';
        try {
          text = await summarize(prefixed, req.deps.toolsFor(req.sessionId).specs());
        } catch (err) {
          // The provider counts more than our estimate: the transcript prompt, now and from here on.
          if (!isContextLimitError(err)) throw err;
          overflowed = true;
        }
        // The tools are offered (the cached prefix holds them): a model that answered with a
        // tool call instead of the note is asked again with the transcript prompt, which has none.
        if (text.trim() !== '') return text;
      }
    }
    return summarize(buildSummaryRequestMessages(r));
  };
}

/** What a compaction is asked for, beside the turn it runs in. */
export interface CompactionOptions {
  trigger: Trigger;
  instructions: string | null;
  targetTokens: number | null;
  /** Percent of the window in use that set it off (auto), shown while it runs. */
  percent?: number | null;
  /** Preview: no model call, a stand-in summary of realistic length. */
  dryRun?: boolean;
  /**
   * A run with no model call that may well change nothing (an automatic prune below the
   * strategy's minimum): told only once it applies, so one that cannot help shows nothing at all.
   */
  quiet?: boolean;
}

/**
 * The one agent function around the engine call: computes a compaction on the current view
 * without writing anything (runCompaction stores it; the preview only shows it).
 */
export async function planCompaction(
  work: SessionWork,
  opts: CompactionOptions,
  /** Where the summary calls' ids go (turn/cost.ts), to be linked to the record once applied. */
  summaryCalls?: number[],
): Promise<CompactionPlan> {
  const { deps, sessionId, profile } = work;
  await settleCounts(deps.store, work.snapshot(), profile.model);
  const view = buildSessionView(work);
  const budget = tokenBudget(deps, sessionId, profile);
  const req: CompactionRequest & Pick<CompactionOptions, 'dryRun' | 'quiet'> = {
    deps,
    sessionId,
    settings: work.settings,
    profile,
    client: work.client,
    signal: work.signal,
    ...opts,
    ...(summaryCalls ? { summaryCalls } : {}),
  };
  // On the work pool when the history is large (worker/offThread.ts); the summarizer stays here.
  const plan = await compactOffThread(compactInput(req, view, budget));
  return inProviderTokens(plan, budget, view, plan.ok ? viewTokensAfter(work, view, plan) : view.view.tokens);
}

/** What the engine is asked: the view's parts, the strategy's settings, the summarizer. */
export function compactInput(
  req: CompactionRequest & Pick<CompactionOptions, 'dryRun' | 'quiet'>,
  view: Pick<SessionView, 'history' | 'compactions' | 'memoryBlock' | 'systemPrompt' | 'facts'> &
    Partial<Pick<SessionView, 'view'>>,
  /** The window and tool definitions in the view's calibrated units, the usage and the ratio (turn/budget.ts). */
  budget: Pick<TokenBudget, 'engineWindow' | 'toolTokens' | 'usage' | 'ratio'>,
): CompactInput {
  const now = req.deps.now();
  return {
    // A copy: the snapshot grows while a preview runs beside a turn.
    history: view.history.slice(),
    compactions: view.compactions,
    memoryBlock: view.memoryBlock,
    systemPrompt: view.systemPrompt,
    memoryFacts: view.facts,
    model: req.profile.model,
    strategy: req.settings.compaction.strategy,
    trigger: req.trigger,
    window: budget.engineWindow,
    toolTokens: budget.toolTokens,
    // The meter's usage (provider units, tool definitions included): the engine's threshold check
    // and progressive's level read the figure the trigger read.
    ...(view.view ? { usage: budget.usage(view.view.tokens) } : {}),
    // priority_chain's auto target is (min(0.85, threshold) − 0.1) of the window.
    threshold: req.settings.compaction.autoThreshold,
    instructions: req.instructions,
    target: req.targetTokens ?? undefined,
    // Preview: no model call, a stand-in summary of realistic length.
    // The summary request carries the tool definitions too: the room for its messages is the
    // window less them.
    summarizer: req.dryRun
      ? dryRunSummarizer
      : summarizeFor(req, view.view, Math.max(1, budget.engineWindow - budget.toolTokens)),
    onStep: req.dryRun || req.quiet ? undefined : (step, tokens) => progress(req, step, tokens, budget.ratio),
    now: () => now,
    newId: req.deps.newId,
    sessionId: req.sessionId,
  };
}

/**
 * The step a running compaction is on, how many it started and the view's tokens then (in the
 * meter's units): kept for chat.state and pushed to the renderers.
 */
function progress(req: CompactionRequest, step: string, engineTokens: number, ratio: number): void {
  const tokens = Math.round(engineTokens * ratio);
  const index = req.deps.sessionState(req.sessionId).compactionStep(step, tokens);
  req.deps.emit({ type: 'compaction.progress', sessionId: req.sessionId, step, index, tokens });
}

/**
 * The engine counts in the view's estimate, tool definitions included; records, notices and
 * previews speak like the meter (provider units). Before and after are the meter's own figures:
 * the view the trigger read, and the view the next request will hold (`afterView`), so a divider
 * says what the meter said and will say.
 */
function inProviderTokens(
  plan: CompactionPlan,
  budget: TokenBudget,
  sv: SessionView,
  afterView: number,
): CompactionPlan {
  const p = (tokens: number): number => Math.round(tokens * budget.ratio);
  return {
    ...plan,
    tokensBefore: budget.providerTokens(sv.view.tokens),
    tokensAfter: budget.providerTokens(afterView),
    steps: plan.steps.map((st) => ({ ...st, tokensBefore: p(st.tokensBefore), tokensAfter: p(st.tokensAfter) })),
  };
}

/**
 * Runs and stores one compaction. A plan that does not reduce the estimate counts as failed and
 * is not applied (a guard: docs/glossary.md). Typed events tell the renderers while it runs and how it
 * ended (the divider is the compaction); a failure or "nothing to compact" is also a notice.
 */
export async function runCompaction(work: SessionWork, opts: CompactionOptions): Promise<CompactionOutcome> {
  const { deps, sessionId, settings, signal } = work;
  const { trigger } = opts;
  const strategy = settings.compaction.strategy;
  const rt = work.state;
  const running = { trigger, strategy, instructions: opts.instructions, percent: opts.percent ?? null };
  rt.compactionStarted(running);
  let announced = false;
  const announce = (): void => {
    if (announced) return;
    announced = true;
    deps.emit({ type: 'compaction.started', sessionId, ...running });
  };
  if (!opts.quiet) announce();
  const summaryCalls: number[] = [];
  const cancelled: CompactionOutcome = { ok: false, record: null, reason: CANCELLED_REASON, plan: null };
  try {
    let plan: CompactionPlan;
    try {
      plan = await planCompaction(work, opts, summaryCalls);
    } catch (err) {
      if (signal.aborted) return ended(work, cancelled, summaryCalls, announced);
      announce();
      const reason = `summary_failed: ${(err as Error).message}`.slice(0, 300);
      persistCompactionNotice(deps, sessionId, { type: 'compaction_failed', trigger, strategy, reason });
      return ended(work, { ok: false, record: null, reason, plan: null }, summaryCalls);
    }
    // The engine turns an aborted summary into a failed step; the user's cancel is no failure, so
    // no failure notice, and a plan finished after the cancel is not applied either.
    if (signal.aborted) return ended(work, cancelled, summaryCalls, announced);
    const reduces =
      plan.ok && plan.tokensAfter < plan.tokensBefore && (plan.hiddenIds.length > 0 || plan.inserted.length > 0);
    if (!reduces) {
      const reason = plan.reason ?? 'did_not_reduce';
      const failed: CompactionOutcome = { ok: false, record: null, reason, plan };
      // An automatic run that cannot help (nothing to hide, too few messages, no reduction) is no
      // failure the user can act on: no element in the chat. A step that failed still says so.
      if (trigger === 'auto' && !isStepFailure(reason)) return ended(work, failed, summaryCalls, announced);
      announce();
      const big = plan.oversized;
      if (big) {
        // Which message, by how much: the notice offers to cut it or leave it out (chat.fitMessage).
        const budget = tokenBudget(deps, sessionId, work.profile);
        persistCompactionNotice(deps, sessionId, {
          type: 'message_too_large',
          trigger,
          strategy,
          reason,
          messageId: big.id,
          messageRole: big.role,
          messageTokens: Math.round(big.tokens * budget.ratio),
          window: effectiveWindow(work.profile),
        });
        return ended(work, failed, summaryCalls);
      }
      persistCompactionNotice(deps, sessionId, {
        type: trigger === 'manual' ? 'nothing_to_compact' : 'compaction_failed',
        trigger,
        strategy,
        reason,
        tokensBefore: plan.tokensBefore,
        tokensAfter: plan.tokensAfter,
      });
      return ended(work, failed, summaryCalls);
    }
    announce();
    // The record, its inserted messages and the memory snapshot row: one transaction.
    const { record } = deps.sessions.applyCompaction(
      sessionId,
      {
        strategy,
        trigger,
        steps: plan.steps,
        hiddenIds: plan.hiddenIds,
        tokensBefore: plan.tokensBefore,
        tokensAfter: plan.tokensAfter,
        summary: plan.summary,
        instructions: opts.instructions,
        ...(plan.compactionId ? { id: plan.compactionId } : {}),
        ...(plan.afterSeq !== undefined ? { afterSeq: plan.afterSeq } : {}),
      },
      plan.inserted.map((m) => ({ id: m.id, role: m.role, content: m.content ?? '', kind: m.kind, meta: m.meta })),
    );
    emitSession(deps, sessionId, settings);
    return ended(work, { ok: true, record, reason: null, plan }, summaryCalls);
  } finally {
    rt.compactionEnded();
  }
}

/**
 * How it ended, told: the summaries' cost goes with the divider (a failed compaction's calls stay
 * unlinked). A quiet run never announced has nothing to end.
 */
function ended(
  work: SessionWork,
  outcome: CompactionOutcome,
  summaryCalls: number[],
  announced = true,
): CompactionOutcome {
  const { deps, sessionId } = work;
  work.state.compactionEnded();
  if (outcome.ok && outcome.record && summaryCalls.length > 0) {
    deps.store.usage.linkCompaction(summaryCalls, outcome.record.id);
    // The summaries moved to the compaction's figures: read again.
    work.state.costChanged();
    emitCost(deps, sessionId);
  }
  if (outcome.ok && outcome.record) deps.emit({ type: 'compaction.finished', sessionId, compaction: outcome.record });
  else if (announced) {
    const reason = outcome.reason ?? 'did_not_reduce';
    deps.emit({ type: 'compaction.failed', sessionId, reason, cancelled: reason === CANCELLED_REASON });
  }
  return outcome;
}

/** A compaction that failed because something broke (a summary call, a step), not because it could not help. */
export function isStepFailure(reason: string): boolean {
  return /^(?:step_failed|summary_failed)/.test(reason);
}
