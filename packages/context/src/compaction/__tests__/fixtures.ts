import type { CompactionRecord, StoredMessage } from '@threadline/protocol';
import { buildView, compact, toCompactionRecord, type CompactInput, type CompactResult, type Summarizer } from '../..';

/** Builds a history with ids `m<seq>`; tool outputs of `outputChars` characters. */
export class HistoryBuilder {
  readonly messages: StoredMessage[] = [];
  private callN = 0;
  add(p: Partial<StoredMessage> & Pick<StoredMessage, 'role'>): StoredMessage {
    const seq = this.messages.length;
    const m: StoredMessage = {
      id: `m${seq}`,
      sessionId: 's',
      seq,
      createdAt: 0,
      content: null,
      kind: 'normal',
      visibility: { user: true, agent: true },
      tokens: null,
      ...p,
    };
    this.messages.push(m);
    return m;
  }
  system(text = 'You are a coding agent.') {
    return this.add({ role: 'system', content: text });
  }
  user(text: string) {
    return this.add({ role: 'user', content: text });
  }
  assistant(text: string) {
    return this.add({ role: 'assistant', content: text });
  }
  /** An assistant tool call and its result. */
  tool(name: string, output: string, args = '{"command":"ls"}'): string {
    const id = `call_${++this.callN}`;
    this.add({
      role: 'assistant',
      content: `Running ${name}.`,
      tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
    });
    this.add({ role: 'tool', content: output, tool_call_id: id, name });
    return id;
  }
  /** A user request, `calls` tool round trips with outputs of `outputChars`, a final answer. */
  segment(request: string, calls: number, outputChars = 2000) {
    this.user(request);
    for (let i = 0; i < calls; i++) this.tool('shell', `out ${request} ${i} `.padEnd(outputChars, 'x'));
    this.assistant(`Done with: ${request}`);
  }
}

export const MODEL = 'test-model'; // chars/4: fast and exact to reason about

export interface SummarizerLog {
  calls: Parameters<Summarizer>[0][];
}

/** A deterministic fake: echoes how many messages it saw and the instructions. */
export function fakeSummarizer(log?: SummarizerLog, text?: string): Summarizer {
  return async (req) => {
    log?.calls.push(req);
    return (
      text ??
      `Summary of ${req.messages.length} messages${req.instructions ? ` focusing on ${req.instructions}` : ''}${req.previousSummaries.length ? ` (folded ${req.previousSummaries.length})` : ''}.`
    );
  };
}

/** Applies a result as the runtime does: append inserts, record the compaction. */
export function apply(
  history: StoredMessage[],
  compactions: CompactionRecord[],
  r: CompactResult,
): { history: StoredMessage[]; compactions: CompactionRecord[] } {
  return {
    history: [...history, ...r.inserted],
    compactions: [...compactions, toCompactionRecord(r, { sessionId: 's', createdAt: 0 })],
  };
}

export function viewIds(history: StoredMessage[], compactions: CompactionRecord[] = []): (string | null)[] {
  return buildView({ history, compactions, model: MODEL }).entries.map((e) => e.id);
}

export async function run(
  input: Partial<CompactInput> & Pick<CompactInput, 'history' | 'strategy'>,
): Promise<CompactResult> {
  return compact({ model: MODEL, window: 100_000, trigger: 'manual', summarizer: fakeSummarizer(), ...input });
}
