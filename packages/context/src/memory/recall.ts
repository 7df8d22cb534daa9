/**
 * Path recall: does a compacted view still name every file the agent edited? Shared by the
 * transcript tests and the bench.
 */
import type { ChatMessage } from '@threadline/protocol';
import { findPaths, normalizePath } from './paths';
import { buildMemoryBlock } from './block';
import { buildCheckpointSnapshot } from './checkpoint';
import { refreshMemory } from './refresh';
import type { RefreshResult } from './types';
import { messageChanges } from './writes';

const DIFF_HEADER = /^diff --git a\/(\S+) b\/(\S+)$/gm;
const PLUS_HEADER = /^\+\+\+ b\/(\S+)$/gm;

function strip(p: string): string {
  return normalizePath(p).replace(/^(?:\.\/)+/, '');
}

/**
 * Files the agent edited: targets of its write commands (`sed -i`, `cat > f`, heredocs, tee,
 * Python writes, editor tools) and files of any `git diff` in the transcript. A path that is a
 * segment suffix of another (`src/a.py` vs `/repo/src/a.py`) is kept once, in the short form.
 */
/**
 * The last path the assistant's words just before the next message named: what an edit that names
 * no file is about when its own message names none (messageChanges; an export that puts the words
 * and the call in two messages). Each assistant message sets it (null when its text names none),
 * its tool results keep it, a user message clears it.
 */
export function namedBefore(m: Pick<ChatMessage, 'role' | 'content'>, before: string | null): string | null {
  if (m.role === 'tool') return before;
  if (m.role !== 'assistant') return null;
  return findPaths((m.content ?? '').slice(0, 20_000)).at(-1) ?? null;
}

export function editedFiles(messages: readonly ChatMessage[]): string[] {
  const found: string[] = [];
  const add = (p: string): void => {
    const s = strip(p);
    if (s !== '' && s !== '/dev/null' && !found.includes(s)) found.push(s);
  };
  let before: string | null = null;
  for (const m of messages) {
    for (const c of messageChanges(m, findPaths, null, before)) if (c.op !== 'delete') add(c.path);
    before = namedBefore(m, before);
    const text = m.content ?? '';
    if (text.includes('diff --git') || text.includes('+++ b/')) {
      for (const x of text.matchAll(DIFF_HEADER)) add(x[2]!);
      for (const x of text.matchAll(PLUS_HEADER)) add(x[1]!);
    }
  }
  return found.filter((p) => !found.some((q) => q !== p && p.endsWith(`/${q}`)));
}

export interface RecallResult {
  files: string[];
  named: string[];
  missing: string[];
  /** named / files; 1 when there is nothing to recall. */
  recall: number;
}

export function pathRecall(text: string, files: readonly string[]): RecallResult {
  const named = files.filter((f) => text.includes(f));
  const missing = files.filter((f) => !text.includes(f));
  return { files: [...files], named, missing, recall: files.length === 0 ? 1 : named.length / files.length };
}

/** Text the model can read from messages: contents and tool call arguments. */
export function messagesText(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => [m.content ?? '', ...(m.tool_calls ?? []).map((tc) => tc.function.arguments)].join('\n'))
    .join('\n');
}

export interface SimulatedCheckpoint {
  kept: ChatMessage[];
  hidden: ChatMessage[];
  checkpoint: string;
  block: string | null;
  refresh: RefreshResult;
}

/**
 * A `cfpm_memory_v1`-style checkpoint without the pipeline: keep head/tail (pair-safe: the tail
 * never starts on a tool result), checkpoint the hidden range with refreshMemory +
 * buildCheckpointSnapshot, and build the injection block from the resulting facts.
 */
export function simulateCheckpoint(
  messages: readonly ChatMessage[],
  opts: { head?: number; tail?: number; now?: number; sessionId?: string } = {},
): SimulatedCheckpoint {
  const head = opts.head ?? 2;
  let tailStart = Math.max(head, messages.length - (opts.tail ?? 8));
  while (tailStart > head && messages[tailStart]?.role === 'tool') tailStart--;
  let headEnd = Math.min(head, tailStart);
  while (headEnd < tailStart && messages[headEnd]?.role === 'tool') headEnd++;
  const hidden = messages.slice(headEnd, tailStart);
  let n = 0;
  const refresh = refreshMemory({
    sessionId: opts.sessionId ?? 'recall',
    messages: hidden,
    now: opts.now ?? 0,
    newId: () => `r${++n}`,
    reason: 'checkpoint',
  });
  return {
    kept: [...messages.slice(0, headEnd), ...messages.slice(tailStart)],
    hidden,
    checkpoint: buildCheckpointSnapshot(hidden, refresh.facts),
    block: buildMemoryBlock(refresh.facts),
    refresh,
  };
}

export interface CheckpointRecall {
  files: string[];
  /** Kept messages only (what plain head/tail truncation would leave). */
  baseline: RecallResult;
  /** Kept messages + checkpoint + memory block (the cfpm_memory_v1 view). */
  full: RecallResult;
  /** The injection block alone (8 items per section). */
  blockOnly: RecallResult;
}

export function checkpointRecall(
  messages: readonly ChatMessage[],
  opts: { head?: number; tail?: number } = {},
): CheckpointRecall {
  const files = editedFiles(messages);
  const sim = simulateCheckpoint(messages, opts);
  const kept = messagesText(sim.kept);
  return {
    files,
    baseline: pathRecall(kept, files),
    full: pathRecall([kept, sim.checkpoint, sim.block ?? ''].join('\n'), files),
    blockOnly: pathRecall(sim.block ?? '', files),
  };
}
