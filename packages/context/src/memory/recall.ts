/**
 * Path recall: does a compacted view still name every file the agent edited? Shared by the
 * transcript tests and the bench.
 */
import type { ChatMessage } from '@threadline/protocol';
import { commandOf, parseToolArgs } from './extract';
import { isPathLike, normalizePath } from './paths';
import { editorWrittenPaths, writtenPaths } from './writes';

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
export function editedFiles(messages: readonly ChatMessage[]): string[] {
  const found: string[] = [];
  const add = (p: string): void => {
    const s = strip(p);
    if (s !== '' && isPathLike(s) && s !== '/dev/null' && !found.includes(s)) found.push(s);
  };
  for (const m of messages) {
    for (const tc of m.tool_calls ?? []) {
      const args = parseToolArgs(tc.function.arguments);
      const cmd = commandOf(args);
      const paths = cmd !== null && !/str_replace_editor/i.test(tc.function.name) ? writtenPaths(cmd) : editorWrittenPaths(tc.function.name, args);
      paths.forEach(add);
    }
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
