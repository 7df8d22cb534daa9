/**
 * The sentences of a message's prose, for memory: lines outside fenced code, list markers and bold
 * taken off, split after `. ! ?` before a space and after the Chinese `。！？`, each trimmed.
 * `thought: true` also takes off a leading `THOUGHT:` / `思考：` (an agent's reasoning label,
 * mini-SWE-agent's format) so that what follows reads as the sentence it is.
 */
export function sentences(text: string, opts: { thought?: boolean } = {}): string[] {
  const out: string[] = [];
  let inFence = false;
  for (const raw of text.split('\n')) {
    if (/^\s*```/.test(raw)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    let line = raw;
    if (opts.thought) line = line.replace(/^\s*(?:THOUGHT|Thought|思考)\s*[:：]\s*/, '');
    line = line
      .replace(/^\s*(?:[-*+>]|\d+[.)])\s+/, '')
      .replace(/\*\*/g, '')
      .trim();
    if (line === '') continue;
    for (const s of line.split(/(?<=[.!?])\s+|(?<=[。！？])/)) if (s.trim() !== '') out.push(s.trim());
  }
  return out;
}
