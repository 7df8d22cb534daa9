import {
  countTextTokensAsync,
  safeHead,
  safeTail,
  TOKENS_PER_MESSAGE,
  truncateToolOutputAsync,
} from '@threadline/context';
import {
  errorMessage,
  AppError,
  MESSAGE_TEXT_KEEP,
  USER_ONLY,
  VISIBLE_TO_ALL,
  type ProviderProfile,
  type StoredMessage,
  type ToolCall,
} from '@threadline/protocol';
import type { NewMessage } from '@threadline/store';
import { ProviderError } from '../provider/errors';
import { TurnCheckpoint } from '../checkpoints/turn';
import { compactOnRequest, type UserRequest } from '../triggers/manual';
import type { TurnDeps, TurnScope } from './deps';
import { tokenBudget } from './budget';
import { refreshSessionMemory } from './memory';
import { callModel, refreshUsage } from './modelCall';
import { persistErrorNotice } from './notices';
import { contentWithAttachments, type PreparedAttachments } from '../attachments';
import { DoomLoopGuard, runToolCall, type ToolOutcome } from './toolStep';
import { settleCounts } from './counting';

export const TURN_ABORTED_TEXT =
  '<turn_aborted>The user interrupted the previous turn; its work may be incomplete.</turn_aborted>';

/**
 * SPEC §9: an oversized paste is truncated with a marker. Over half the window (in the engine's
 * tokens) the model gets head + tail, as for a tool output; the full text stays beside it
 * (messages.fullOutput for the user, read_tool_output by message id for the agent).
 */
async function userContent(
  deps: TurnDeps,
  sessionId: string,
  id: string,
  text: string,
  profile: ProviderProfile,
): Promise<NewMessage> {
  // Over what a message keeps: head and tail by characters first (the whole text stays beside it).
  if (text.length > MESSAGE_TEXT_KEEP) {
    // Room for the marker: the cut text is within MESSAGE_TEXT_KEEP (else this would recurse).
    const half = Math.floor((MESSAGE_TEXT_KEEP - 200) / 2);
    const head = safeHead(text, half);
    const tail = safeTail(text, half);
    const cut = `${head}\n…${text.length - head.length - tail.length} chars truncated… (the full text can be read with read_tool_output(id: "${id}", offset, limit))\n${tail}`;
    const inner = await userContent(deps, sessionId, id, cut, profile);
    return { ...inner, fullOutput: text, meta: { ...inner.meta, truncated: true } };
  }
  const plain: NewMessage = { id, role: 'user', content: text };
  // Half of what the provider can take, in the engine's units: the window less the tool
  // definitions, scaled by the calibration (turn/budget.ts).
  const limit = Math.max(1, Math.floor(tokenBudget(deps, sessionId, profile).viewWindow / 2));
  // A token is at least one UTF-8 byte: a text this small cannot be over, no need to count it.
  if (Buffer.byteLength(text, 'utf8') <= limit) return plain;
  // A long paste is counted in slices (other sessions' requests are answered meanwhile).
  if ((await countTextTokensAsync(text, profile.model)) + TOKENS_PER_MESSAGE <= limit) return plain;
  const cut = await truncateToolOutputAsync(text, {
    policy: 'tokens',
    maxTokens: limit,
    model: profile.model,
    outputId: id,
  });
  if (!cut.truncated) return plain;
  return { ...plain, content: cut.text, fullOutput: text, meta: { truncated: true } };
}

/** store appends the user message (its own transaction, before chat.send returns). */
export async function appendUserMessage(
  deps: TurnDeps,
  sessionId: string,
  request: UserRequest,
  profile: ProviderProfile,
  /** An edit: the parent of the edited message (a new branch); default the active leaf. */
  parentId?: string | null,
  /** Files and images the user attached: texts become blocks of the content, images image parts. */
  attachments?: PreparedAttachments,
): Promise<StoredMessage> {
  const session = deps.store.sessions.get(sessionId);
  if (!session) throw new AppError('not_found', `No session with id ${sessionId}.`);
  // A manual compaction phrase is a command to the app, not part of the conversation: the user
  // sees it, the model never does.
  const { text } = request;
  const command = request.manual !== null;
  const withFiles = attachments ? contentWithAttachments(text, attachments.blocks) : text;
  const user = await userContent(deps, sessionId, deps.newId(), withFiles, profile);
  if (attachments && attachments.refs.length > 0) user.meta = { ...user.meta, attachments: attachments.refs };
  const [message] = deps.sessions.append(
    sessionId,
    // An edit starts a branch of work: its message is a task the ledger always carries (userWords.ts).
    [
      {
        ...user,
        visibility: command ? USER_ONLY : VISIBLE_TO_ALL,
        ...(parentId !== undefined && !command ? { meta: { ...user.meta, branchStart: true } } : {}),
      },
    ],
    parentId === undefined ? { model: profile.model } : { parentId, model: profile.model },
  );
  // An untitled session is named after its first request, so the list and its search mean
  // something without the user renaming every session (a rename later wins).
  // (Read again: a long paste was counted in slices meanwhile, and a rename then wins too.)
  const current = deps.store.sessions.get(sessionId) ?? session;
  const title = command || current.title !== '' ? '' : titleFrom(text) || (attachments?.refs[0]?.name ?? '');
  if (title !== '') deps.store.sessions.rename(sessionId, title);
  deps.emit({ type: 'message.complete', sessionId, message });
  return message;
}

const TITLE_MAX = 60;

/** Inline Markdown as the text it shows: links and images by their text, no emphasis or code marks. */
function plainInline(line: string): string {
  return line
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/(\*\*|__|~~)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2');
}

/** The first line that says something, as plain text (no Markdown), cut at a word near 60 chars. */
export function titleFrom(text: string): string {
  const line = text
    .split('\n')
    .map((l) =>
      plainInline(l.replace(/^\s*(#+|>|[-*+]|\d+[.)])\s+/, ''))
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .find((l) => l !== '' && !l.startsWith('```'));
  if (!line) return '';
  if (line.length <= TITLE_MAX) return line;
  const cut = line.slice(0, TITLE_MAX);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The whole turn after the user message: never throws; failures become notices and events. */
export async function runTurn(outer: TurnScope, request: UserRequest): Promise<void> {
  const scope: TurnScope = { ...outer, checkpoint: new TurnCheckpoint(outer.deps, outer.sessionId) };
  try {
    // The system prompt says whether commands are sandboxed: the detection (started with the
    // runtime, a few ms) is in before the first request.
    await scope.deps.sandbox?.info();
    await turnBody(scope, request);
  } catch (err) {
    const message = errorMessage(err);
    scope.deps.emit({
      type: 'error',
      sessionId: scope.sessionId,
      code: err instanceof AppError ? err.code : 'internal',
      message,
    });
    try {
      persistErrorNotice(scope.deps, scope.sessionId, { type: 'turn_failed', message });
    } catch {
      // The store itself failed; the error event above is all we can do.
    }
  }
  // What the turn changed in the folder, whatever its outcome (never throws).
  await scope.checkpoint?.finish();
  try {
    refreshUsage(scope);
  } catch {
    // Usage is advisory; never let it mask the turn's outcome.
  }
}

async function turnBody(scope: TurnScope, request: UserRequest): Promise<void> {
  const { deps, sessionId } = scope;
  if (request.manual) {
    await compactOnRequest(scope, request.manual.instructions);
    return;
  }
  // Exact counts of large messages first (counted in slices, turn/counting.ts): what the turn
  // decides (auto-compaction, the budget) is decided on them.
  await settleCounts(deps.store, deps.sessions.get(sessionId), scope.profile.model);
  await refreshSessionMemory(scope, { at: 'turn_start' });
  // Lazy MCP servers start now; each start is bounded, a failure only leaves its tools out, and
  // a cancel does not wait for a slow one (it keeps starting for the next turn).
  await untilAborted(deps.mcp?.prepareTurn(sessionId), scope.signal);
  const doom = new DoomLoopGuard(deps.limits.doomLoopLimit);
  for (let call = 0; call < deps.limits.maxModelCalls; call++) {
    if (call > 0) await settleCounts(deps.store, deps.sessions.get(sessionId), scope.profile.model);
    const reply = await callModel(scope);
    if (reply.kind === 'stopped') return;
    if (reply.kind === 'aborted') {
      commitStep(scope, assistantMessage(reply.id, reply.content, []), [], true);
      return;
    }
    if (reply.kind === 'error') {
      failTurn(scope, reply.id, reply.content, reply.error);
      return;
    }
    const assistant = assistantMessage(reply.id, reply.content, reply.toolCalls, reply.reasoning);
    if (reply.toolCalls.length === 0) {
      // The final answer's facts (and their runtime notice) belong to this turn, not the next.
      const stored = commitStep(scope, assistant, [], false);
      await refreshSessionMemory(scope, { at: 'committed', messages: stored });
      return;
    }
    const { outcomes, repeated } = await runToolCalls(scope, reply.id, reply.toolCalls, doom, request.text);
    const stored = commitStep(scope, assistant, outcomes, scope.signal.aborted);
    // What the step's tools did counts even when the turn stops here (a file already written).
    await refreshSessionMemory(scope, { at: 'committed', messages: stored });
    if (repeated) {
      persistErrorNotice(deps, sessionId, {
        type: 'doom_loop',
        tool: repeated.function.name,
        limit: deps.limits.doomLoopLimit,
      });
      return;
    }
    if (scope.signal.aborted) return;
  }
  persistErrorNotice(deps, sessionId, { type: 'max_model_calls', limit: deps.limits.maxModelCalls });
}

function untilAborted(work: Promise<void> | undefined, signal: AbortSignal): Promise<void> {
  if (!work || signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    signal.addEventListener('abort', () => resolve(), { once: true });
    void work.finally(resolve);
  });
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
  scope: TurnScope,
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
    outcomes.push(await runToolCall(scope, messageId, call, userText));
  }
  return { outcomes, repeated };
}

/**
 * store commits the step: the assistant message and its tool results (and gate notices) in one
 * transaction, then the events. An aborted step also gets the turn_aborted marker.
 */
function commitStep(
  scope: TurnScope,
  assistant: NewMessage,
  outcomes: ToolOutcome[],
  aborted: boolean,
): StoredMessage[] {
  const { deps, sessionId } = scope;
  // From here on history holds the step: chat.state no longer reports it as in flight.
  deps.runtime(sessionId).clearStep();
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
  if (batch.length === 0) return [];
  const stored = deps.sessions.append(sessionId, batch, { model: scope.profile.model });
  emitCommitted(scope, stored, outcomes);
  return stored;
}

function emitCommitted(scope: TurnScope, stored: StoredMessage[], outcomes: ToolOutcome[]): void {
  const { deps, sessionId } = scope;
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
function failTurn(scope: TurnScope, id: string, partial: string, error: unknown): void {
  const { deps, sessionId } = scope;
  if (partial !== '') commitStep(scope, { ...assistantMessage(id, partial, []), meta: { partial: true } }, [], false);
  else deps.runtime(sessionId).clearStep();
  const message = errorMessage(error);
  deps.emit({ type: 'error', sessionId, code: 'provider_error', message });
  const typed =
    error instanceof ProviderError && error.kind !== 'aborted'
      ? {
          kind: error.kind,
          detail: error.detail,
          ...(error.kind === 'no_vision' ? { model: scope.profile.model } : {}),
        }
      : {};
  persistErrorNotice(deps, sessionId, { type: 'provider_error', message, ...typed });
}
