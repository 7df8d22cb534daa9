// What the checkpoint tests share: a model that makes the calls the user's text lists, and the
// sha256 of every file of a folder.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { ChatRequestView, FakeReply } from '@threadline/fake-llm';
import { lastIsTool } from './harness';

/** The user's text is the list of calls the model makes in one step, then it says "done". */
export const callsFromText = (req: ChatRequestView): FakeReply =>
  lastIsTool(req) ? { content: 'done' } : { toolCalls: JSON.parse(req.lastUserText) as { name: string }[] };

export const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });

/** One turn's text: these calls in one step. */
export const turnOf = (...calls: ReturnType<typeof call>[]): string => JSON.stringify(calls);

/** sha256 of every file under `dir` (the user's .git included), by relative path; a link as `-> target`. */
export function hashes(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isSymbolicLink()) out[r] = `-> ${readlinkSync(path.join(dir, r))}`;
    else if (e.isDirectory()) Object.assign(out, hashes(dir, r));
    else
      out[r] = createHash('sha256')
        .update(readFileSync(path.join(dir, r)))
        .digest('hex');
  }
  return out;
}
