import type { ChatMessage } from '@threadline/protocol';

// What every part of the context bench shares: the model it counts for and how it prints.
export const MODEL = 'gpt-4o';
export const out = (s = ''): void => void process.stdout.write(s + '\n');
export const fmt = (ms: number): string => `${ms.toFixed(2)} ms`;

export function textOf(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => [m.content ?? '', ...(m.tool_calls ?? []).map((c) => c.function.arguments)].join('\n'))
    .join('\n');
}
