import { errorMessage, AppError, type StoredMessage, type ToolCall } from '@threadline/protocol';
import type { NewMessage } from '@threadline/store';
import { ProviderError } from '../provider/errors';
import { TurnCheckpoint } from '../checkpoints/turn';
import { TurnLeftovers } from '../sandbox/turnLeftovers';
import { compactOnRequest, type UserRequest } from './manualCompaction';
import type { Turn } from './turn';
import { planMemoryRefresh, refreshSessionMemory, storeMemory, storedPart, type MemoryWrite } from './memory';
import { prepareProjectMemory, proposeToProject } from './project';
import { callModel, refreshUsage } from './modelCall';
import { callRecorded, newCall, recordCall } from './cost';
import type { CallUsage } from '../provider/types';
import { persistErrorNotice } from './notices';
import { TURN_ABORTED_TEXT } from '../noticeTexts';
import { DoomLoopGuard, type ToolOutcome } from './toolStep';
import { runToolCall } from './executeToolCall';
import { settleCounts } from '../session/counting';
import { untilAborted } from './abortable';

/**
 * The turn after the user message (acceptUserMessage.ts), as its steps: refresh memory, then per
 * model call build the view, compact if due and stream the reply (modelCall.ts), run the tool
 * calls (toolStep.ts: gate → approval → tool) and commit the step; then finish (the checkpoint,
 * the meter). Never throws: failures become notices and events.
 */
export async function runTurn(turn: Turn, request: UserRequest): Promise<void> {
  const { deps, sessionId, signal } = turn;
  const { limits } = deps;
  // Every write of the turn goes through the session's snapshot: checked against the store once.
  deps.sessions.hold(sessionId);
  // A helper's changes and leftovers belong to its parent turn's checkpoint and held files (given
  // to it, so the user sees them in the parent's chat): only their owner finishes them.
  const ownCheckpoint = !turn.checkpoint;
  turn.checkpoint ??= new TurnCheckpoint(deps, sessionId);
  const ownLeftovers = !turn.leftovers;
  if (deps.held) turn.leftovers ??= new TurnLeftovers(deps, deps.held, sessionId);
  try {
    // The system prompt says whether commands are sandboxed: the detection (started with the
    // runtime, a few ms) is in before the first request.
    await deps.sandbox?.info();
    if (request.manual) {
      await compactOnRequest(turn, request.manual.instructions);
      return;
    }
    // Exact counts of large messages first (counted in slices, session/counting.ts): what the turn
    // decides (auto-compaction, the budget) is decided on them.
    await settleCounts(deps.store, turn.snapshot(), turn.profile.model);
    await refreshSessionMemory(turn, { at: 'turn_start' });
    // The project's memory: what the user just said (a correction) in, its facts checked, its
    // block fixed for every request of this turn.
    await prepareProjectMemory(turn);
    // Lazy MCP servers start now; each start is bounded, a failure only leaves its tools out, and
    // a cancel does not wait for a slow one (it keeps starting for the next turn).
    turn.toolsChanged(await untilAborted(deps.mcp?.prepareTurn(sessionId, turn.mcpServers), signal));
    const doom = new DoomLoopGuard(limits.doomLoopLimit);
    for (let call = 0; call < limits.maxModelCalls; call++) {
      if (call > 0) await settleCounts(deps.store, turn.snapshot(), turn.profile.model);
      // Build the view, compact if due, stream the reply (with the recovery loop around it).
      const reply = await callModel(turn);
      if (reply.kind === 'stopped') return;
      if (reply.kind === 'aborted') {
        await commitStep(turn, assistantMessage(reply.id, reply.content, []), [], {
          aborted: true,
          usage: reply.usage ?? null,
        });
        return;
      }
      if (reply.kind === 'error') {
        await failTurn(turn, reply.id, reply.content, reply.error);
        return;
      }
      const assistant = assistantMessage(reply.id, reply.content, reply.toolCalls, reply.reasoning);
      if (reply.toolCalls.length === 0) {
        // The final answer, its call's tokens and its facts (and their runtime notice) are stored
        // together: they belong to this turn, not the next.
        await commitStep(turn, assistant, [], { usage: reply.usage, refresh: true });
        return;
      }
      // The call's tokens are stored now: the tools may take long (and the app may be killed).
      if (reply.usage)
        recordCall(deps, {
          sessionId,
          profile: turn.profile,
          model: turn.profile.model,
          kind: 'chat',
          usage: reply.usage,
        });
      const { outcomes, repeated } = await runToolCalls(turn, reply.id, reply.toolCalls, doom, request.text);
      // What the step's tools did counts even when the turn stops here (a file already written).
      await commitStep(turn, assistant, outcomes, { aborted: signal.aborted, refresh: true });
      if (repeated) {
        persistErrorNotice(deps, sessionId, {
          type: 'doom_loop',
          tool: repeated.function.name,
          limit: limits.doomLoopLimit,
        });
        return;
      }
      if (signal.aborted) return;
    }
    persistErrorNotice(deps, sessionId, { type: 'max_model_calls', limit: limits.maxModelCalls });
  } catch (err) {
    const message = errorMessage(err);
    deps.emit({ type: 'error', sessionId, code: err instanceof AppError ? err.code : 'internal', message });
    try {
      persistErrorNotice(deps, sessionId, { type: 'turn_failed', message });
    } catch {
      // The store itself failed; the error event above is all we can do.
    }
  } finally {
    // Finish, whatever the outcome: what its commands left to hold (before the checkpoint's last
    // snapshot, which then has none of it), what the turn changed in the folder (neither
    // throws), the meter.
    try {
      if (ownLeftovers) await turn.leftovers?.finish();
      if (ownCheckpoint) await turn.checkpoint.finish();
      // What the turn verified, into the project's inbox (one store call, when there is any).
      await proposeToProject(turn);
      refreshUsage(turn);
    } catch {
      // Usage is advisory; never let it mask the turn's outcome.
    } finally {
      deps.sessions.release(sessionId);
    }
  }
}

/** Thinking kept with its answer for the user, at most this much (it is never sent back to the model). */
const REASONING_MAX_CHARS = 200_000;

function assistantMessage(id: string, content: string, toolCalls: ToolCall[], reasoning = ''): NewMessage {
  const m: NewMessage = { id, role: 'assistant', content };
  if (toolCalls.length > 0) m.tool_calls = toolCalls;
  // In meta, which no request carries: the model's thinking is shown, never resent.
  if (reasoning !== '') m.meta = { reasoning: reasoning.slice(0, REASONING_MAX_CHARS) };
  return m;
}

/** tool calls → gate → approval → tool, for every call of one assistant message, in order. */
async function runToolCalls(
  turn: Turn,
  messageId: string,
  calls: ToolCall[],
  doom: DoomLoopGuard,
  userText: string,
): Promise<{ outcomes: ToolOutcome[]; repeated: ToolCall | null }> {
  const outcomes: ToolOutcome[] = [];
  /** The call the doom-loop guard stopped at (the one repeated), then no other call runs. */
  let repeated: ToolCall | null = null;
  for (const call of calls) {
    if (repeated === null && doom.check(call)) repeated = call;
    if (repeated !== null) {
      // Every call still gets a result, so the pair stays whole in history.
      const content = 'not run: the same call was repeated too many times in a row (doom-loop guard)';
      outcomes.push({
        call,
        status: 'error',
        durationMs: 0,
        messages: [
          { role: 'tool', tool_call_id: call.id, content, meta: { toolName: call.function.name, status: 'error' } },
        ],
      });
      continue;
    }
    outcomes.push(await runToolCall(turn, messageId, call, userText));
  }
  return { outcomes, repeated };
}

/**
 * store commits the step: the assistant message and its tool results (and gate notices) in one
 * transaction (turns.commit), with the call's tokens when they were not stored yet and — `refresh`
 * — the memory refresh of what the step says and its notice; then the events. An aborted step
 * also gets the turn_aborted marker. A step of much text has its memory refreshed on the work
 * pool, stored after the step (resolved once it is).
 */
async function commitStep(
  turn: Turn,
  assistant: NewMessage,
  outcomes: ToolOutcome[],
  opts: { aborted?: boolean; usage?: CallUsage | null; refresh?: boolean } = {},
): Promise<void> {
  const { deps, sessionId } = turn;
  const aborted = opts.aborted ?? false;
  // From here on history holds the step: chat.state no longer reports it as in flight.
  turn.state.clearStep();
  const batch: NewMessage[] = [];
  const hasContent = (assistant.content ?? '') !== '' || (assistant.tool_calls?.length ?? 0) > 0;
  if (hasContent) batch.push(aborted ? { ...assistant, meta: { partial: true } } : assistant);
  for (const o of outcomes) batch.push(...o.messages);
  if (aborted)
    batch.push({
      role: 'user',
      content: TURN_ABORTED_TEXT,
      kind: 'turn_aborted',
      visibility: { user: true, agent: true },
    });
  const plan = opts.refresh ? planMemoryRefresh(turn, { at: 'committed', messages: batch }) : null;
  const write: MemoryWrite | undefined = plan && 'now' in plan ? plan.now : undefined;
  if (write) turn.promotions.push(...write.promotions);
  const memory = storedPart(write);
  // Awaited once the step is stored; should the store fail first, its failure is not left unheard.
  if (plan && 'later' in plan) plan.later.catch(() => undefined);
  const call = opts.usage
    ? newCall(deps, { sessionId, profile: turn.profile, model: turn.profile.model, kind: 'chat', usage: opts.usage })
    : undefined;
  if (batch.length > 0 || call || memory) {
    const stored = deps.sessions.commit(
      sessionId,
      { messages: batch, ...(call ? { call } : {}), ...(memory ? { memory } : {}) },
      { model: turn.profile.model },
    );
    if (stored.call) callRecorded(deps, stored.call);
    emitCommitted(turn, stored.messages, outcomes);
    if (stored.notice) deps.emit({ type: 'notice', sessionId, message: stored.notice });
  }
  if (plan && 'later' in plan) storeMemory(turn, await plan.later);
}

function emitCommitted(turn: Turn, stored: StoredMessage[], outcomes: ToolOutcome[]): void {
  const { deps, sessionId } = turn;
  const byCall = new Map(outcomes.map((o) => [o.call.id, o]));
  for (const m of stored) {
    if (m.kind === 'gate_notice') {
      deps.emit({ type: 'notice', sessionId, message: m });
      continue;
    }
    const o = m.role === 'tool' && m.tool_call_id ? byCall.get(m.tool_call_id) : undefined;
    if (o)
      deps.emit({
        type: 'tool.finished',
        sessionId,
        toolCallId: o.call.id,
        status: o.status,
        durationMs: o.durationMs,
        message: m,
      });
    else deps.emit({ type: 'message.complete', sessionId, message: m });
  }
}

/** A provider failure that is not a context error: keep the partial text, say what happened. */
async function failTurn(turn: Turn, id: string, partial: string, error: unknown): Promise<void> {
  const { deps, sessionId } = turn;
  if (partial !== '') await commitStep(turn, { ...assistantMessage(id, partial, []), meta: { partial: true } }, []);
  else turn.state.clearStep();
  const message = errorMessage(error);
  deps.emit({ type: 'error', sessionId, code: 'provider_error', message });
  const typed =
    error instanceof ProviderError && error.kind !== 'aborted'
      ? {
          kind: error.kind,
          detail: error.detail,
          ...(error.kind === 'no_vision' ? { model: turn.profile.model } : {}),
        }
      : {};
  persistErrorNotice(deps, sessionId, { type: 'provider_error', message, ...typed });
}
