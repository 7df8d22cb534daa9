import type { ToolCall } from '@threadline/protocol';

/** One streamed tool-call fragment, as `onToolCallDelta` reports it. */
export interface ToolCallDelta {
  index: number;
  id: string | null;
  name: string | null;
  argumentsDelta: string;
}

interface Slot {
  id: string;
  name: string;
  args: string;
}

interface RawToolCallDelta {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/**
 * Rebuilds tool calls from stream deltas. OpenAI sends the id and name once then argument
 * fragments; some compatible servers repeat the id/name in every delta, split the name, or omit
 * `index` — all handled. Calls without an id get a generated one so results can be paired.
 */
export class ToolCallAssembler {
  private slots: Slot[] = [];

  constructor(private readonly newId: () => string = () => `call_${Math.random().toString(36).slice(2, 12)}`) {}

  add(deltas: RawToolCallDelta[], position: number[] = []): ToolCallDelta[] {
    const out: ToolCallDelta[] = [];
    deltas.forEach((d, i) => {
      const index = typeof d.index === 'number' ? d.index : (position[i] ?? i);
      const slot = (this.slots[index] ??= { id: '', name: '', args: '' });
      if (d.id) slot.id = d.id;
      const name = d.function?.name ?? null;
      // A repeated full name is the same name; a different piece is a continuation of a split name.
      if (name && name !== slot.name) slot.name += name;
      const args = d.function?.arguments ?? '';
      slot.args += args;
      out.push({ index, id: d.id ?? null, name, argumentsDelta: args });
    });
    return out;
  }

  result(): ToolCall[] {
    return this.slots
      .filter((s): s is Slot => s !== undefined && s.name !== '')
      .map((s) => ({
        id: s.id || this.newId(),
        type: 'function' as const,
        function: { name: s.name, arguments: s.args },
      }));
  }
}
