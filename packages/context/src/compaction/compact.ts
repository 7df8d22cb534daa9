import {
  errorMessage,
  isAutoThreshold,
  type ChatMessage,
  type CompactionRecord,
  type CompactionStats,
  type MemoryFact,
  type StepReport,
  type StoredMessage,
  type Strategy,
  type Trigger,
} from '@threadline/protocol';
import { buildCheckpointSnapshot } from '../memory/checkpoint';
import { countMessageTokens, type TokenCache } from '../tokens/count';
import { orderAgentMessages } from '../view/order';
import { WorkState } from './state';
import { DEFAULT_PROTECTED_TOOLS } from './units';
import { AUTO_MIN_MESSAGES, manualFallback, planFor, type Plan } from './strategies';
import { defaultTarget, priorityChainTarget, shouldAutoCompact } from './triggers';
import type { Summarizer } from './prompts';
import type { StepContext, StepDetail, StepName, StepSpec } from './types';
import { summarize, memoryCheckpoint, rebuild } from './steps/folding';
import { brutePrune, keepHeadTail, pruneToolOutputs, stripChitchat } from './steps/pruning';
import { dropMonologues } from './steps/monologues';
import { cutToolOutputs } from './steps/cut';
import { cutMessages } from './steps/cutMessages';
import { applyLedger, oversizedKeptMessage, type LedgerSlot, type ViewNamesMemo } from './finish';
import { SUMMARY_PREFIX } from './prompts';
import { imageHorizon, imagePartsOf, imagePlaceholder, imageTokens } from '../view/images';
import { encoderFor } from '../tokens/encoder';
import { taskMessageIds } from './userWords';

export interface CompactInput {
  history: readonly StoredMessage[];
  /** Earlier compactions of the session (only active ones shape the view). */
  compactions?: readonly CompactionRecord[];
  strategy: Strategy;
  model: string;
  /** Context window in tokens (> 0). */
  window: number;
  /**
   * Tokens the view must fit in after compaction. Default: 60% of the window; for an automatic
   * priority_chain run, (min(0.85, threshold) − 0.1) × window.
   */
  target?: number;
  trigger: Trigger;
  /** The caller's auto-compaction threshold (0..1), used by priority_chain's auto target. */
  threshold?: number | null;
  /**
   * Tokens every request carries besides the view (the tool definitions), in the view's units:
   * part of the fixed tokens, so targets and figures include them as the provider counts them.
   */
  toolTokens?: number;
  /**
   * The caller's usage figure (0..1, what its trigger read). When given, the threshold check of
   * an automatic run and progressive's level use it instead of recomputing: one figure decides.
   */
  usage?: number;
  /** From `/compact <instructions>`; passed to the summarizer. */
  instructions?: string | null;
  /** Writes summaries; null/absent: summarizing steps are skipped (and their strategies fail). */
  summarizer?: Summarizer | null;
  systemPrompt?: string | null;
  memoryBlock?: string | null;
  /** Current memory facts, for the CFPM checkpoint. */
  memoryFacts?: readonly MemoryFact[];
  protectedTools?: readonly string[];
  /** Overrides the strategy's preset (a custom list of step groups). */
  plan?: Plan;
  /** Replaces the CFPM checkpoint builder (default: the memory module's). */
  checkpoint?: (hidden: ChatMessage[], facts: MemoryFact[]) => string;
  now?: () => number;
  newId?: () => string;
  tokenCache?: TokenCache;
  sessionId?: string;
  /**
   * Told before each step runs, with the view's tokens at that point (the engine's estimate), so a
   * caller can show the compaction's progress.
   */
  onStep?: (step: StepName, tokens: number) => void;
}

export interface CompactResult {
  ok: boolean;
  /** Why nothing was applied (null when ok). */
  reason: string | null;
  compactionId: string;
  strategy: Strategy;
  trigger: Trigger;
  /** History ids the agent no longer sees. */
  hiddenIds: string[];
  /** Agent-only messages to append to history (meta.anchorSeq places them in the view). */
  inserted: StoredMessage[];
  steps: StepReport[];
  stats: CompactionStats;
  summary: string | null;
  tokensBefore: number;
  tokensAfter: number;
  target: number;
  /**
   * False when the strategy could not get under the target and returns its best result (still
   * smaller than before): the caller applies it all the same (best effort).
   */
  targetReached: boolean;
  /** seq of the last history message this compaction saw. */
  afterSeq: number;
  /** A failure by a message that may not be hidden and is over the window: which one, how big. */
  oversized?: { id: string; seq: number; role: StoredMessage['role']; tokens: number } | null;
}

/** The target when the caller gives none; manual and recovery runs keep the 60% default. */
function defaultTargetFor(input: CompactInput): number {
  if (input.strategy === 'priority_chain' && input.trigger === 'auto')
    return priorityChainTarget(input.window, input.threshold);
  return defaultTarget(input.window);
}

/** Reason prefix of a step that threw (`step_failed:summarize: <the provider's sentence>`). */
export const STEP_FAILED = 'step_failed';

/** Reason prefix of the one failure best effort cannot avoid (a kept message over the window). */
export const MESSAGE_OVER_WINDOW = 'message_over_window';

/** Default ids: random UUIDs (ids must stay unique across compactions of a session). */
const randomId = (): string => globalThis.crypto.randomUUID();

/** The stats of a compaction (also of one that changed nothing: removed 0, 0%). */
export function compactionStats(
  originalCount: number,
  compactedCount: number,
  originalTokens: number,
  compactedTokens: number,
): CompactionStats {
  const removed = originalCount - compactedCount;
  return {
    originalCount,
    compactedCount,
    removed,
    reductionPercent: originalCount > 0 ? Math.round((removed / originalCount) * 1000) / 10 : 0,
    originalTokens,
    compactedTokens,
    tokensSaved: originalTokens - compactedTokens,
  };
}

async function runStep(state: WorkState, ctx: StepContext, spec: StepSpec): Promise<StepDetail> {
  switch (spec.name) {
    case 'strip_chitchat':
      return stripChitchat(state, ctx);
    case 'prune_tool_outputs':
      return pruneToolOutputs(state, ctx, spec);
    case 'drop_monologues':
      return dropMonologues(state, ctx, spec);
    case 'memory_checkpoint':
      return memoryCheckpoint(state, ctx);
    case 'summarize':
      return summarize(state, ctx, spec);
    case 'keep_head_tail':
      return keepHeadTail(state, ctx, spec);
    case 'rebuild':
      return rebuild(state, ctx, spec);
    case 'brute_prune':
      return brutePrune(state, ctx, spec);
    case 'cut_tool_outputs':
      return cutToolOutputs(state, ctx);
    case 'cut_messages':
      return cutMessages(state, ctx);
  }
}

/**
 * Best effort after a strategy's own steps: older kept outputs become placeholders, then the
 * oldest outputs still in the view are cut with markers, then messages too large to carry whole
 * keep their head and tail, until the view fits. Pruning needs no minimum of messages: below a
 * strategy's minimum, an automatic run is only this.
 */
const BEST_EFFORT: StepSpec[] = [
  { name: 'prune_tool_outputs', keepLast: 2 },
  { name: 'cut_tool_outputs' },
  { name: 'cut_messages' },
];

/** The usage the run is judged by: the caller's figure when it gave one, else tokens / window. */
function usageOf(input: CompactInput, before: number): number {
  return typeof input.usage === 'number' && Number.isFinite(input.usage) ? input.usage : before / input.window;
}

/** Usage under the caller's auto threshold: an automatic run changes nothing (and inserts nothing). */
function belowThreshold(input: CompactInput, before: number): boolean {
  const t = input.threshold;
  if (input.trigger !== 'auto' || !isAutoThreshold(t)) return false;
  return !shouldAutoCompact(usageOf(input, before), t);
}

/** The result's summary: the text of the summary or checkpoint this compaction inserted, ledger included. */
function summaryOf(state: WorkState): string | null {
  const own = state.inserted.filter((m) => m.kind === 'summary' || m.kind === 'memory_snapshot').at(-1);
  if (!own) return null;
  return (own.content ?? '').replace(SUMMARY_PREFIX, '').trim();
}

/**
 * Computes a compaction. Pure: history is never edited; the result says which ids
 * to hide and which agent-only messages to append. A compaction that does not bring the view
 * under the target, or does not reduce it at all, is `ok: false` and hides/inserts nothing.
 */
export async function compact(input: CompactInput): Promise<CompactResult> {
  const newId = input.newId ?? randomId;
  const now = (input.now ?? Date.now)();
  const compactionId = newId();
  const model = input.model;
  const cache = input.tokenCache;
  const afterSeq = input.history.reduce((mx, m) => Math.max(mx, m.seq), -1);
  const target = input.target ?? defaultTargetFor(input);
  let fixed = Math.max(0, input.toolTokens ?? 0);
  if (input.systemPrompt) fixed += countMessageTokens({ role: 'system', content: input.systemPrompt }, model, cache);
  if (input.memoryBlock) fixed += countMessageTokens({ role: 'user', content: input.memoryBlock }, model, cache);
  const sessionId = input.sessionId ?? input.history[0]?.sessionId ?? 'session';
  const state = new WorkState(
    orderAgentMessages(input.history, input.compactions ?? []),
    fixed,
    model,
    cache,
    sessionId,
    compactionId,
    now,
    newId,
  );
  // Images first: whatever else it does, a compaction turns the images of the messages it saw into
  // placeholders (view/images.ts), so they count in the view before it and not after.
  const images = inViewImages(
    state.entries.map((e) => e.msg),
    input.compactions ?? [],
    model,
  );
  const placeholders = images.placeholders;
  const before = state.total() + images.tokens;
  /** The view as it will be: the state's messages plus the placeholders of the images. */
  const viewTotal = (): number => state.total() + placeholders;
  const originalCount = state.count();
  const steps: StepReport[] = [];
  if (images.count > 0)
    steps.push({
      name: 'placeholder_images',
      tokensBefore: before,
      tokensAfter: before - images.tokens + placeholders,
      images: images.count,
    });

  const fail = (reason: string, oversized: CompactResult['oversized'] = null): CompactResult => ({
    oversized,
    ok: false,
    reason,
    compactionId,
    strategy: input.strategy,
    trigger: input.trigger,
    hiddenIds: [],
    inserted: [],
    steps,
    stats: compactionStats(originalCount, originalCount, before, before),
    summary: null,
    tokensBefore: before,
    tokensAfter: before,
    target,
    targetReached: before <= target,
    afterSeq,
  });

  if (!(input.window > 0)) return fail('invalid_window');
  const nonInserted = state.entries.filter((e) => typeof e.msg.meta?.['compactionId'] !== 'string').length;
  // Below a strategy's minimum, an automatic run does not fold yet, but pruning needs no minimum;
  // over the window, nothing waits.
  const belowMinimum = input.trigger === 'auto' && nonInserted < AUTO_MIN_MESSAGES[input.strategy];
  const foldsNow = !belowMinimum || before > input.window;

  const ctx: StepContext = {
    strategy: input.plan ? 'custom' : input.strategy,
    trigger: input.trigger,
    model,
    window: input.window,
    target,
    instructions: input.instructions?.trim() || null,
    summarizer: input.summarizer ?? null,
    facts: input.memoryFacts ?? [],
    protectedTools: input.protectedTools ?? DEFAULT_PROTECTED_TOOLS,
    checkpoint: input.checkpoint ?? buildCheckpointSnapshot,
    taskIds: taskMessageIds(input.history),
  };
  const plan = [...(input.plan ?? planFor(input.strategy, usageOf(input, before), input.trigger))];
  // An explicit request compacts whenever there is anything to hide: a last group that runs only
  // when the strategy's own plan hid nothing.
  const fallbackAt = input.trigger === 'manual' && !input.plan ? plan.push(manualFallback(input.strategy)) - 1 : -1;
  if (plan.length === 0 || belowThreshold(input, before)) return fail('below_threshold');
  if (!foldsNow) plan.length = 0;
  if (fixed > input.window)
    return fail(
      `${MESSAGE_OVER_WINDOW}: the system prompt, tool definitions and memory block are ${fixed} tokens, over the window of ${input.window}, and may not be hidden`,
    );
  const oversized = oversizedKeptMessage(state, ctx);
  if (oversized) {
    const m = oversized.msg;
    return fail(
      `${MESSAGE_OVER_WINDOW}: the ${m.role} message ${m.id} (seq ${m.seq}) is ${oversized.tokens} tokens, over the window of ${input.window}, and may not be hidden`,
      { id: m.id, seq: m.seq, role: m.role, tokens: oversized.tokens },
    );
  }
  const original = [...state.entries];

  /** Runs one step; null when it ran, else why it failed (the summarizer's own sentence). */
  const run = async (spec: StepSpec): Promise<string | null> => {
    const tokensBefore = state.total();
    input.onStep?.(spec.name, viewTotal());
    try {
      const detail = await runStep(state, ctx, spec);
      steps.push({ name: spec.name, tokensBefore, tokensAfter: state.total(), ...detail });
      return null;
    } catch (err) {
      const error = errorMessage(err);
      steps.push({ name: spec.name, tokensBefore, tokensAfter: tokensBefore, skipped: 'failed', error });
      return error;
    }
  };
  /** A failed step's reason names the step and carries what went wrong, as the provider said it. */
  const stepFailed = (name: StepName, error: string): CompactResult =>
    fail(`${STEP_FAILED}:${name}: ${error}`.slice(0, 600));
  let slot: LedgerSlot | null = null;
  const viewNamesMemo: ViewNamesMemo = new Map();
  // The ledger is part of the view a strategy must fit: it is (re)applied before every stop check.
  const ledger = (): void => {
    const tokensBefore = state.total();
    const r = applyLedger(state, ctx, original, slot, viewNamesMemo);
    slot = r.slot;
    const after = state.total();
    if (after !== tokensBefore) steps.push({ name: 'ledger', tokensBefore, tokensAfter: after, ...r.detail });
  };

  for (const [i, group] of plan.entries()) {
    if (state.hidden.size > 0) ledger();
    const now = viewTotal();
    if (now <= target && now < before) break;
    if (i === fallbackAt && now < before) break;
    for (const spec of group) {
      const error = await run(spec);
      if (error !== null) return stepFailed(spec.name, error);
    }
  }
  ledger();
  for (const spec of BEST_EFFORT) {
    if (viewTotal() <= target) break;
    const error = await run(spec);
    if (error !== null) return stepFailed(spec.name, error);
    ledger();
  }

  const after = viewTotal();
  // Never a larger view: a compaction that does not shrink it changes nothing.
  if (after >= before) return fail(foldsNow ? 'no_reduction' : 'too_few_messages');
  // Never "ok" over the window: what could not be made smaller is named (the runtime offers to cut it).
  if (after > input.window) {
    const big = largestEntry(state);
    return fail(
      `${MESSAGE_OVER_WINDOW}: after every step the view is ${after} tokens, over the window of ${input.window}; the largest message left, the ${big.msg.role} message ${big.msg.id} (seq ${big.msg.seq}), is ${big.tokens} tokens`,
      { id: big.msg.id, seq: big.msg.seq, role: big.msg.role, tokens: big.tokens },
    );
  }
  const inserted = state.inserted.map((m, i) => ({ ...m, seq: afterSeq + 1 + i }));
  return {
    ok: true,
    reason: null,
    compactionId,
    strategy: input.strategy,
    trigger: input.trigger,
    hiddenIds: [...state.hidden],
    inserted,
    steps,
    stats: compactionStats(originalCount, state.count(), before, after),
    summary: summaryOf(state),
    tokensBefore: before,
    tokensAfter: after,
    target,
    targetReached: after <= target,
    afterSeq,
  };
}

/** The record the store keeps for an applied compaction. */
export function toCompactionRecord(
  r: CompactResult,
  opts: { sessionId: string; createdAt: number; instructions?: string | null },
): CompactionRecord {
  return {
    id: r.compactionId,
    sessionId: opts.sessionId,
    strategy: r.strategy,
    trigger: r.trigger,
    steps: r.steps,
    hiddenIds: r.hiddenIds,
    insertedIds: r.inserted.map((m) => m.id),
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
    summary: r.summary,
    instructions: opts.instructions ?? null,
    afterSeq: r.afterSeq,
    active: true,
    createdAt: opts.createdAt,
    undoneAt: null,
  };
}

/** The largest message of the view as it stands (an inserted copy names what it stands for). */
function largestEntry(state: WorkState): { msg: StoredMessage; tokens: number } {
  let big = state.entries[0]!;
  for (const e of state.entries) if (e.tokens > big.tokens) big = e;
  const of = big.msg.meta?.['placeholderFor'];
  const msg = typeof of === 'string' ? { ...big.msg, id: of } : big.msg;
  return { msg, tokens: big.tokens };
}

/** The images the view holds now (newer than the last compaction), their tokens and their placeholders'. */
function inViewImages(
  messages: readonly StoredMessage[],
  compactions: readonly CompactionRecord[],
  model: string,
): { count: number; tokens: number; placeholders: number } {
  const horizon = imageHorizon(compactions);
  const out = { count: 0, tokens: 0, placeholders: 0 };
  for (const m of messages) {
    if (m.seq <= horizon) continue;
    for (const im of imagePartsOf(m)) {
      out.count += 1;
      out.tokens += imageTokens(im.width, im.height);
      out.placeholders += encoderFor(model).count(`\n${imagePlaceholder(im.name)}`);
    }
  }
  return out;
}
