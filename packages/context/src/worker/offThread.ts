/**
 * The engine's heavy calls, run on the work pool (pool/pool.ts) when their input is large and
 * on this thread when it is small (a worker costs a copy of the input and a message round trip)
 * or when no worker can run. Same results either way (worker/__tests__/offThread.test.ts).
 */
import { compact, type CompactInput, type CompactResult } from '../compaction/compact';
import type { SummarizeRequest } from '../compaction/prompts';
import type { StepName } from '../compaction/types';
import { refreshMemory } from '../memory/refresh';
import type { RefreshInput, RefreshResult } from '../memory/types';
import { messageTextLength } from '../tokens/count';
import { runOffThread, type HostCalls } from '../pool/pool';
import type { CompactPayload, RefreshPayload } from './tasks';

/** A compaction over more text than this (or more messages) runs on the pool. */
export const COMPACT_OFF_THREAD_CHARS = 200_000;
export const COMPACT_OFF_THREAD_MESSAGES = 1_000;
/** A memory refresh that parses more text than this runs on the pool. */
export const REFRESH_OFF_THREAD_CHARS = 100_000;

function textOf(messages: readonly Parameters<typeof messageTextLength>[0][]): number {
  let n = 0;
  for (const m of messages) n += messageTextLength(m);
  return n;
}

/**
 * `compact` off the request thread: the history goes to a worker as plain data, the summarizer,
 * the progress callback and the id source stay here (the worker asks for them). A custom
 * checkpoint builder or token cache cannot cross: such a call runs here.
 */
export function compactOffThread(input: CompactInput, opts: { force?: boolean } = {}): Promise<CompactResult> {
  const small = textOf(input.history) < COMPACT_OFF_THREAD_CHARS && input.history.length < COMPACT_OFF_THREAD_MESSAGES;
  if ((small && !opts.force) || input.checkpoint || input.tokenCache) return compact(input);
  const { summarizer, checkpoint: _c, now, newId, tokenCache: _t, onStep, ...rest } = input;
  // The engine reads the clock once: read here, the same value either way.
  const at = (now ?? Date.now)();
  const payload: CompactPayload = {
    ...rest,
    now: at,
    summarizer: Boolean(summarizer),
    newId: Boolean(newId),
    onStep: Boolean(onStep),
  };
  const calls: HostCalls = {};
  if (summarizer) calls.summarize = (r) => summarizer(r as SummarizeRequest);
  if (newId) calls.newId = () => newId();
  if (onStep)
    calls.onStep = (a) => {
      const { step, tokens } = a as { step: StepName; tokens: number };
      onStep(step, tokens);
    };
  return runOffThread<CompactResult>('compact', payload, {
    calls,
    inThread: () => compact({ ...input, now: () => at }),
  });
}

/** `refreshMemory` off the request thread when it parses much text; ids come from this thread. */
export function refreshMemoryOffThread(input: RefreshInput, opts: { force?: boolean } = {}): Promise<RefreshResult> {
  if (textOf(input.messages) < REFRESH_OFF_THREAD_CHARS && !opts.force) return Promise.resolve(refreshMemory(input));
  const { newId, ...payload } = input;
  return runOffThread<RefreshResult>('refreshMemory', payload satisfies RefreshPayload, {
    calls: { newId: () => newId() },
    inThread: () => refreshMemory(input),
  });
}
