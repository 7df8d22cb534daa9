/**
 * What a user's message gives memory: the goals and constraints the user states (a correction's
 * "Actually," dropped first, so "Actually, don't use axios; use fetch" is one), and the paths the
 * user names as they are used — not the paths of a pasted error, stack trace or output (a fenced
 * block is quoted text), not an example's ("e.g. /etc/app.yaml", an `<example>` block), and not a
 * file the user asks to be written (it is not there yet: a tool writing it is what makes it one).
 */
import type { ChatMessage } from '@threadline/protocol';
import { MAX_ARTIFACTS_PER_TOOL_OUTPUT } from './constants';
import {
  CORRECTION_OPENING,
  ERROR_LINE_PATTERNS,
  LOG_LINE_PATTERNS,
  MISSING_PATH_PATTERNS,
  RULES_OUT,
  USER_GOAL_PATTERNS,
  matchesAny,
} from './keywords';
import { findPaths } from './paths';
import { sentences } from './sentences';
import type { MemoryDraft } from './types';

/** A line of an example: "e.g.", "for example", "such as", "etc.", "例如"… */
const EXAMPLE_LINE = /\b(?:e\.g\.|i\.e\.|for example|for instance|such as|etc\.?)(?=\W|$)|例如|比如|等等|示例/i;
/** An example block of a prompt (`<example>`, `<example_response>`): its paths are examples. */
const EXAMPLE_OPEN = /<(example[\w-]*)>/i;
/** A stack frame (`at f (file:1:2)`, `File "x", line 3`): the path of an error, not of the work. */
const FRAME_LINE = /^\s*(?:at\s+\S.*:\d+(?::\d+)?\)?$|File "[^"]+", line \d+)/;
/** The words right before a path the user wants written: "write … to", "save as", "写到". */
const TARGET_BEFORE =
  /\b(?:write|writes|save|output|export|put|store|dump|generate|create)\b[^.;\n]{0,60}?\b(?:to|into|as|under|at|in)\s*[`'"“]?$|(?:写到|写入|保存到|保存为|输出到|存到|生成到)\s*[`'"“]?$/i;

/** A user sentence without a correction's opening ("Actually, don't use X" → "don't use X"). */
export function withoutCorrectionOpening(sentence: string): string {
  return sentence.replace(CORRECTION_OPENING, '').trim();
}

/**
 * What an instruction rules out (`don't use axios; use fetch` → `axios`), lowercased, or null.
 * A newer goal that rules X out supersedes an older one that asks for X (refresh.ts).
 */
export function ruledOut(sentence: string): string | null {
  for (const re of RULES_OUT) {
    const m = re.exec(sentence);
    if (m?.[1]) return m[1].replace(/[.,;:!?]+$/, '').toLowerCase();
  }
  return null;
}

/**
 * The paths of a user message as the user used them: not in a stack frame or error line, not in an
 * example, not the file the user asks to be written.
 */
function usedPaths(text: string): string[] {
  const out: string[] = [];
  let example: string | null = null;
  let fenced = false;
  for (const line of text.split('\n')) {
    // A fenced block is quoted: pasted output, a log, a stack trace, example commands.
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    if (example !== null) {
      if (new RegExp(`</${example}>`, 'i').test(line)) example = null;
      continue;
    }
    const open = EXAMPLE_OPEN.exec(line);
    if (open) {
      if (!new RegExp(`</${open[1]}>`, 'i').test(line)) example = open[1]!;
      continue;
    }
    if (
      EXAMPLE_LINE.test(line) ||
      FRAME_LINE.test(line) ||
      matchesAny(ERROR_LINE_PATTERNS, line) ||
      matchesAny(LOG_LINE_PATTERNS, line) ||
      matchesAny(MISSING_PATH_PATTERNS, line)
    )
      continue;
    for (const p of findPaths(line)) {
      const at = line.indexOf(p);
      if (at >= 0 && TARGET_BEFORE.test(line.slice(Math.max(0, at - 80), at))) continue;
      out.push(p);
    }
  }
  return out;
}

export function fromUser(m: ChatMessage, out: MemoryDraft[]): void {
  const text = m.content ?? '';
  if (/^\s*\[(?:CFPM_|THREADLINE_)/.test(text)) return; // our own notices and blocks
  // Goals and constraints the user states ("My goal: …", "Don't …", "目标：…", "不要…").
  for (const raw of sentences(text.slice(0, 4000)).slice(0, 40)) {
    const s = withoutCorrectionOpening(raw);
    if (matchesAny(USER_GOAL_PATTERNS, s) && !isTemplateOrStatus(s))
      out.push({ category: 'goal', content: s, source: 'cfpm_auto', origin: 'user' });
  }
  let n = 0;
  for (const p of usedPaths(text.slice(0, 20_000))) {
    if (n++ >= MAX_ARTIFACTS_PER_TOOL_OUTPUT) break;
    out.push({ category: 'artifact', content: p, source: 'cfpm_auto', origin: 'user' });
  }
}

/**
 * Template and status lines are no goals: a label whose value is a question ("Objective: What
 * is the goal of the task?"), a placeholder ("<describe the task>", "{goal}", "TBD"), or a state
 * ("Status: in progress", "Task 3/5: done").
 */
export function isTemplateOrStatus(sentence: string): boolean {
  const s = sentence.trim();
  if (/^(?:status|state|progress|phase|step|stage)\s*(?:\d+\s*)?[:：]/i.test(s)) return true;
  if (/^(?:状态|进度|阶段)\s*[:：]/.test(s)) return true;
  const value = s.replace(/^[^:：]{0,40}[:：]\s*/, '').trim();
  if (value === '' || /[?？]$/.test(value)) return true;
  if (/^(?:<[^>]*>|\{[^}]*\}|\[[^\]]*\]|\$\{?\w+\}?)\.?$/.test(value)) return true;
  return /^(?:tbd|todo|n\/a|none|null|-+|\.{3}|…|done|completed?|finished|in progress|pending|ok|yes|no|passed|failed|✅|❌|✔|\d+\s*\/\s*\d+|\d+\s*%|待定|无|完成|进行中)\.?$/i.test(
    value,
  );
}
