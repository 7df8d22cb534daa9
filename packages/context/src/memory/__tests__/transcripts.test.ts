/**
 * Real transcripts: after a cfpm_memory_v1-style checkpoint of each mini-swe run (keep head 2 /
 * tail 8), the view + checkpoint + memory block still name every file the agent edited.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ChatMessageSchema, type ChatMessage } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { transcriptsDir } from '../../cli/transcripts';
import { checkpointRecall, editedFiles } from '../recall';

const dir = transcriptsDir();
const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith('mini-swe-') && f.endsWith('.json')).sort() : [];
const load = (f: string): ChatMessage[] => z.object({ messages: z.array(ChatMessageSchema) }).parse(JSON.parse(readFileSync(path.join(dir, f), 'utf8'))).messages;

describe('edited-file recall on the real mini-swe transcripts', () => {
  it('finds the transcripts', () => {
    expect(files.length).toBe(11);
  });

  const rows: string[] = [];
  const results = new Map<string, ReturnType<typeof checkpointRecall>>();
  it.each(files)('%s keeps every edited file named', (f) => {
    const r = checkpointRecall(load(f));
    results.set(f, r);
    rows.push(`${f.padEnd(48)} files=${String(r.files.length).padStart(3)} baseline=${r.baseline.recall.toFixed(2)} full=${r.full.recall.toFixed(2)} block=${r.blockOnly.recall.toFixed(2)}`);
    expect(r.files.length).toBeGreaterThan(0);
    expect(r.full.missing).toEqual([]);
    expect(r.full.recall).toBe(1);
  });

  it('the memory is what keeps them: head/tail alone loses files', () => {
    expect(results.size).toBe(files.length);
    const lost = [...results.values()].map((r) => r.baseline.missing.length).reduce((a, b) => a + b, 0);
    expect(lost).toBeGreaterThan(0);
    console.log(`edited-file recall (head 2 / tail 8):\n${rows.join('\n')}`);
  });
});

describe('editedFiles', () => {
  it('reads write commands and the final diff, keeping the short form of one file', () => {
    const ms: ChatMessage[] = [
      { role: 'assistant', content: '', tool_calls: [{ id: 'a', type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: "sed -i 's/x/y/' /testbed/src/a.py && cat > t.py <<EOF\nx\nEOF" }) } }] },
      { role: 'user', content: 'diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\ndiff --git a/docs/b.rst b/docs/b.rst' },
    ];
    expect(editedFiles(ms)).toEqual(['t.py', 'src/a.py', 'docs/b.rst']);
  });
});
