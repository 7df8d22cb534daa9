// The fake model's script for the helper tests: a parent that delegates, helpers that each read one
// file (or run what their task names) and report. Requests are told apart by their system prompt.
import type { ChatRequestView, FakeLlm, FakeReply, RequestMessage } from '@threadline/fake-llm';
import { expect } from 'vitest';

/** What a request carried, as a test reads it back. */
export interface SentRequest {
  messages: RequestMessage[];
  tools?: unknown[];
}

/** The names of the tools a request offered. */
export const toolNames = (req: SentRequest): string[] =>
  (req.tools ?? []).map((t) => (t as { function: { name: string } }).function.name);

/** A helper's requests say so in their system prompt (helpers/roles.ts helperPrompt). */
export const isHelperRequest = (req: SentRequest): boolean =>
  String(req.messages[0]?.content ?? '').includes('# You are a helper');

/** The task of a helper's request: its first user message that is not the memory block. */
export const taskOf = (req: SentRequest): string =>
  String(req.messages.find((m) => m.role === 'user' && !String(m.content ?? '').startsWith('[CFPM_'))?.content ?? '');

/** The chat requests the fake model received, oldest first (title requests left out). */
export const sent = (llm: FakeLlm): SentRequest[] =>
  llm
    .chatRequests()
    .map((r) => r.body as SentRequest)
    .filter((b) => !/^Title this conversation/.test(String(b.messages.at(-1)?.content ?? '')));

const text = (m: RequestMessage): string => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));

/** Everything a request carried, as one string (to look for what must not be there). */
export const requestText = (req: { messages: RequestMessage[] }): string =>
  req.messages.map((m) => `${text(m)} ${JSON.stringify(m.tool_calls ?? [])}`).join('\n');

export interface DelegateTask {
  task: string;
  role?: string;
  tools?: string[];
  model?: string;
}

/**
 * The parent delegates `tasks` when the user says `delegateOn`, then answers with what the tool
 * returned; other user messages get an echo. A helper runs `helperCall(task)` (a tool call, or
 * null for none) and then reports `Report for <task>: <what its tool returned>`.
 */
export function delegatingModel(opts: {
  delegateOn: string;
  tasks: DelegateTask[];
  helperCall: (task: string) => { name: string; arguments: Record<string, unknown> } | null;
}): (req: ChatRequestView) => FakeReply {
  return (req) => {
    const last = req.messages.at(-1);
    if (isHelperRequest(req)) {
      const task = taskOf(req);
      if (last?.role === 'tool') return { content: `Report for ${task}: ${text(last).slice(0, 200)}` };
      const call = opts.helperCall(task);
      return call ? { toolCalls: [call] } : { content: `Report for ${task}: nothing to do` };
    }
    if (last?.role === 'tool') return { content: `Parent read: ${text(last).slice(0, 3000)}` };
    if (req.lastUserText.includes(opts.delegateOn))
      return { toolCalls: [{ name: 'delegate', arguments: { tasks: opts.tasks } }] };
    return { content: `You said: ${req.lastUserText}` };
  };
}

/** The requests a helper with this task sent. */
export function helperRequests(all: SentRequest[], task: string): SentRequest[] {
  const mine = all.filter((r) => isHelperRequest(r) && taskOf(r) === task);
  expect(mine.length).toBeGreaterThan(0);
  return mine;
}
