/**
 * The user's own words (kept by every strategy): which user messages are the task, which of
 * their sentences are standing instructions, and how a message too long for the ledger's budget
 * is shortened (its instruction sentences first, then its bulk). The same rules measure what a
 * compaction kept (`intentRetention`), so the bench and the quality tests judge what the ledger does.
 */
import type { StoredMessage } from '@threadline/protocol';
import { isAbortMarker } from '../markers';
import { safeHead, safeTail } from '../truncate/truncate';

/**
 * A standing instruction: a sentence that binds what the agent does from now on. English modal
 * and preference words, and their Simplified Chinese equivalents.
 */
const INSTRUCTION_EN =
  /\b(?:must(?:n't)?|never|always|don'?t|do not|only|instead of|prefer(?:s|red|ably)?|make sure|ensure)\b/i;
const INSTRUCTION_ZH = /必须|不要|永远|总是|只|而不是|确保|务必|别|不能|不准|禁止/;

export function isInstructionSentence(sentence: string): boolean {
  return INSTRUCTION_EN.test(sentence) || INSTRUCTION_ZH.test(sentence);
}

/** "ok", "ya", "lanjut", "好的": short, not a question, not an exclamation, not a command. */
export function isChitchat(text: string | null): boolean {
  if (text === null) return false;
  const t = text.trim();
  if (t.length === 0 || t.length >= 15) return false;
  if (/[?!？！]/.test(t)) return false;
  return !t.startsWith('/');
}

/** Sentences shorter than this are fragments ("Only", "- must"), not instructions. */
const MIN_SENTENCE_CHARS = 8;

/**
 * The sentences of a text, each an exact substring of it (trimmed): lines, then sentence ends
 * (`. ! ?` before a space, or the Chinese `。！？；`).
 */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    let start = 0;
    const re = /[.!?](?=\s)|[。！？；]/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(line)) !== null) {
      const s = line.slice(start, m.index + m[0].length).trim();
      if (s !== '') out.push(s);
      start = m.index + m[0].length;
    }
    const rest = line.slice(start).trim();
    if (rest !== '') out.push(rest);
  }
  return out;
}

/** The standing-instruction sentences of a text, each once, in order. */
export function instructionSentences(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const s of sentencesOf(text)) {
    if (s.length < MIN_SENTENCE_CHARS || seen.has(s) || !isInstructionSentence(s)) continue;
    seen.add(s);
    out.push(s);
  }
  return out;
}

/** A message the user wrote (not a notice, marker, compaction insert or acknowledgement). */
export function isUserWords(m: StoredMessage): boolean {
  if (m.role !== 'user' || m.kind !== 'normal' || isAbortMarker(m)) return false;
  // A compaction's inserts are not the user's words, except a user message cut to fit (placeholderFor).
  if (typeof m.meta?.['compactionId'] === 'string' && typeof m.meta?.['placeholderFor'] !== 'string') return false;
  const text = m.content ?? '';
  if (text.trim() === '' || /^\s*\[(?:CFPM_|THREADLINE_)/.test(text)) return false;
  return !isChitchat(text);
}

/**
 * The task messages of a history (its active branch, in order): the first user message of the
 * session, and the first user message of each branch of work the user started — a message the
 * user sent in place of another (an edit: the runtime marks it `meta.branchStart`; or a history
 * whose parent links jump: its parent is not the message before it) or marked `meta.newTask`.
 */
export function taskMessageIds(history: readonly StoredMessage[]): Set<string> {
  const ids = new Set<string>();
  let first = true;
  let prev: StoredMessage | null = null;
  for (const m of history) {
    // A message cut to fit is a copy of one seen before, never a task of its own.
    if (isUserWords(m) && m.meta?.['placeholderFor'] === undefined) {
      const branched = prev !== null && m.parentId !== undefined && m.parentId !== null && m.parentId !== prev.id;
      const marked = m.meta?.['newTask'] === true || m.meta?.['branchStart'] === true;
      if (first || branched || marked) ids.add(m.id);
      first = false;
    }
    prev = m;
  }
  return ids;
}

/**
 * A user message shortened to `maxChars`: its instruction sentences first (each verbatim), then
 * the message in its order as its head and tail, the middle left out with a marker (naming
 * `id`, when known, for read_tool_output). Whole when it fits.
 */
export function shortenUserMessage(text: string, maxChars: number, id?: string): string {
  if (text.length <= maxChars) return text;
  const lead: string[] = [];
  let used = 0;
  for (const s of instructionSentences(text)) {
    if (used + s.length + 1 > maxChars / 2) break;
    lead.push(s);
    used += s.length + 1;
  }
  const head = lead.length > 0 ? `${lead.join('\n')}\n[…the message in its order, cut:]\n` : '';
  const mark = id ? `\n[…cut; read it whole with read_tool_output(id: "${id}", offset, limit)…]\n` : '\n[…cut…]\n';
  const room = Math.max(0, maxChars - head.length - mark.length);
  // What it asks is said first: two thirds of the room to the head, the rest to the tail.
  const first = safeHead(text, Math.max(Math.ceil((room * 2) / 3), Math.min(taskHead(text).length, room)));
  const last = safeTail(text, Math.max(0, room - first.length));
  return `${head}${first}${mark}${last}`;
}

/** Characters of a message's opening that say what it asks (its first sentences). */
export const TASK_HEAD_CHARS = 300;

/**
 * The opening of a task message: its first sentences, whole, up to TASK_HEAD_CHARS (at least the
 * first sentence). A message too large to carry whole keeps at least this, verbatim.
 */
export function taskHead(text: string): string {
  const t = text.trimStart();
  if (t.length <= TASK_HEAD_CHARS) return t.trimEnd();
  let end = 0;
  const re = /[.!?](?=\s)|[。！？；]|\n/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(t)) !== null) {
    const at = m.index + m[0].length;
    if (at > TASK_HEAD_CHARS) break;
    end = at;
  }
  return t.slice(0, end > 0 ? end : TASK_HEAD_CHARS).trimEnd();
}

export interface IntentRetention {
  /** Task messages, and how many of them the view holds whole (verbatim). */
  tasks: number;
  tasksKept: number;
  /** Task messages whose opening (taskHead: what they ask) the view holds verbatim. */
  taskHeadsKept: number;
  /** Distinct standing-instruction sentences of the user, and how many the view holds verbatim. */
  instructions: number;
  instructionsKept: number;
  /** The instructions the view lost (for reports). */
  lost: string[];
}

/** What the view the model reads (`viewText`: its texts joined) keeps of the user's words. */
export function intentRetention(history: readonly StoredMessage[], viewText: string): IntentRetention {
  const tasks = taskMessageIds(history);
  let tasksKept = 0;
  let taskHeadsKept = 0;
  const sentences = new Set<string>();
  for (const m of history) {
    if (!isUserWords(m)) continue;
    const text = m.content ?? '';
    if (tasks.has(m.id) && viewText.includes(text)) tasksKept++;
    if (tasks.has(m.id) && viewText.includes(taskHead(text))) taskHeadsKept++;
    for (const s of instructionSentences(text)) sentences.add(s);
  }
  const lost = [...sentences].filter((s) => !viewText.includes(s));
  return {
    tasks: tasks.size,
    tasksKept,
    taskHeadsKept,
    instructions: sentences.size,
    instructionsKept: sentences.size - lost.length,
    lost,
  };
}
