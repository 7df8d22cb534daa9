import type { ChatMessage, MemoryFact } from '@threadline/protocol';

let seq = 0;
export function fact(p: Partial<MemoryFact> & Pick<MemoryFact, 'category' | 'content'>): MemoryFact {
  seq++;
  return {
    id: `f${seq}`,
    sessionId: 's1',
    status: 'active',
    pinned: false,
    source: 'cfpm_auto',
    confidence: 0.7,
    evidenceCount: 1,
    lastValidatedAt: null,
    validationCommand: null,
    createdAt: 1,
    updatedAt: 1,
    ...p,
  };
}

export function ids(prefix = 'id'): () => string {
  let n = 0;
  return () => `${prefix}${++n}`;
}

let call = 0;
/** An assistant shell call and its tool result. */
export function shell(command: string, output: string, text = '', name = 'bash'): ChatMessage[] {
  const id = `call_${++call}`;
  return [
    {
      role: 'assistant',
      content: text,
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify({ command }) } }],
    },
    { role: 'tool', content: output, tool_call_id: id },
  ];
}
