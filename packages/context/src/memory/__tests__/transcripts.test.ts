/**
 * Issue 4 deliverable 8 on the real pipeline: each mini-swe run is stored as the runtime stores
 * it, its memory is refreshed as the runtime refreshes it (turn start and after every tool step),
 * and then compacted with the real `compact({ strategy: 'cfpm_memory_v1' })`. The view the model
 * would get next (history + checkpoint + `[CFPM_RUNTIME_MEMORY_V1]` block) must still name every
 * file the agent edited.
 */
import { toChatMessage, type ChatMessage, type MemoryFact, type StoredMessage } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { compact, toCompactionRecord, type CompactResult } from '../../compaction/compact';
import { loadTranscripts } from '../../cli/transcripts';
import { buildView } from '../../view/buildView';
import { historyFromChatMessages } from '../../view/ingest';
import { buildMemoryBlock } from '../block';
import { editedFiles, messagesText, pathRecall } from '../recall';
import { refreshMemory } from '../refresh';

/** chars/4 counting keeps 11 runs fast; recall does not depend on the tokenizer. */
const MODEL = 'transcript-model';
const transcripts = loadTranscripts().filter((t) => t.name.startsWith('mini-swe-'));

/**
 * The runtime's refreshes (packages/agent turn/memory.ts): at the start of a turn (after a user
 * message) and after each tool step, each time over the whole stored list with the facts so far.
 */
function refreshLikeTheRuntime(history: readonly StoredMessage[]): MemoryFact[] {
  const messages: ChatMessage[] = history.map(toChatMessage);
  let facts: MemoryFact[] = [];
  let n = 0;
  messages.forEach((m, i) => {
    const stepEnd = m.role === 'tool' && messages[i + 1]?.role !== 'tool';
    if (m.role !== 'user' && !stepEnd) return;
    facts = refreshMemory({
      sessionId: 's',
      messages: messages.slice(0, i + 1),
      facts,
      now: i,
      newId: () => `f${++n}`,
    }).facts;
  });
  return facts;
}

interface Run {
  name: string;
  files: string[];
  result: CompactResult;
  /** The next request: system, memory block, kept history, checkpoint and continuation. */
  view: ChatMessage[];
  /** Only the history messages the compaction kept (what head/tail alone would leave). */
  keptOnly: ChatMessage[];
  block: string | null;
}

async function compactRun(name: string, raw: readonly ChatMessage[]): Promise<Run> {
  const history = historyFromChatMessages(raw, { model: MODEL, sessionId: 's' });
  const facts = refreshLikeTheRuntime(history);
  const block = buildMemoryBlock(facts);
  const before = buildView({ history, model: MODEL, memoryBlock: block });
  const result = await compact({
    history,
    strategy: 'cfpm_memory_v1',
    model: MODEL,
    window: Math.ceil(before.tokens / 0.9),
    trigger: 'manual',
    memoryFacts: facts,
    memoryBlock: block,
    summarizer: null,
    now: () => 0,
    newId: (() => {
      let i = 0;
      return () => `c${++i}`;
    })(),
  });
  const compactions = result.ok ? [toCompactionRecord(result, { sessionId: 's', createdAt: 0 })] : [];
  const after = buildView({
    history: [...history, ...(result.ok ? result.inserted : [])],
    compactions,
    model: MODEL,
    memoryBlock: block,
  });
  const keptOnly = after.entries
    .filter((e) => e.id !== null && !['memory_snapshot', 'continuation'].includes(e.kind))
    .map((e) => e.message);
  return { name, files: editedFiles(raw), result, view: after.messages, keptOnly, block };
}

describe('edited-file recall after a real cfpm_memory_v1 compaction of the mini-swe transcripts', () => {
  it('finds the 11 mini-swe transcripts', () => {
    expect(transcripts.map((t) => t.name)).toHaveLength(11);
  });

  const rows: string[] = [];
  const runs = new Map<string, Run>();

  it.each(transcripts.map((t) => [t.name, t] as const))(
    '%s: view + memory block name every edited file',
    async (_name, t) => {
      const run = await compactRun(t.name, t.messages);
      runs.set(t.name, run);
      const full = pathRecall(messagesText(run.view), run.files);
      const baseline = pathRecall(messagesText(run.keptOnly), run.files);
      const blockOnly = pathRecall(run.block ?? '', run.files);
      const r = run.result;
      rows.push(
        `${t.name.padEnd(44)} ${r.ok ? 'ok    ' : r.reason!.padEnd(6)} tokens ${String(r.tokensBefore).padStart(6)} → ${String(r.tokensAfter).padStart(6)} ` +
          `files=${String(run.files.length).padStart(3)} recall=${full.recall.toFixed(2)} kept-only=${baseline.recall.toFixed(2)} block=${blockOnly.recall.toFixed(2)}`,
      );
      expect(run.files.length).toBeGreaterThan(0);
      if (t.name === 'mini-swe-psf__requests-1142') {
        // Its last message is one 868K-character user message (the final diff) inside the kept
        // tail, over half the window: it keeps its head and tail, the middle readable by its id.
        expect(r.ok, r.reason ?? '').toBe(true);
        expect(r.tokensAfter).toBeLessThanOrEqual(r.target);
        expect(run.view.some((m) => (m.content ?? '').length > 800_000)).toBe(false);
        expect(run.view.some((m) => /read it whole with read_tool_output\(id: "/.test(m.content ?? ''))).toBe(true);
      } else {
        expect(r.ok, `${t.name}: ${r.reason}`).toBe(true);
        expect(r.tokensAfter).toBeLessThanOrEqual(r.target);
        expect(run.view.filter((m) => (m.content ?? '').startsWith('[CFPM_MEMORY_V1]'))).toHaveLength(1);
        expect(run.block).not.toBeNull();
      }
      expect(full.missing).toEqual([]);
    },
  );

  it('the checkpoint and memory are what keep them: the kept messages alone lose files', () => {
    expect(runs.size).toBe(transcripts.length);
    const lost = [...runs.values()]
      .filter((r) => r.result.ok)
      .map((r) => pathRecall(messagesText(r.keptOnly), r.files).missing.length)
      .reduce((a, b) => a + b, 0);
    expect(lost).toBeGreaterThan(0);
    console.log(`edited-file recall after compact(cfpm_memory_v1), window = tokens / 0.9, manual:\n${rows.join('\n')}`);
  });
});

describe('editedFiles', () => {
  it('reads write commands and the final diff, keeping the short form of one file', () => {
    const ms: ChatMessage[] = [
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id: 'a',
            type: 'function',
            function: {
              name: 'bash',
              arguments: JSON.stringify({ command: "sed -i 's/x/y/' /testbed/src/a.py && cat > t.py <<EOF\nx\nEOF" }),
            },
          },
        ],
      },
      {
        role: 'user',
        content:
          'diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\ndiff --git a/docs/b.rst b/docs/b.rst',
      },
    ];
    expect(editedFiles(ms)).toEqual(['t.py', 'src/a.py', 'docs/b.rst']);
  });
});
