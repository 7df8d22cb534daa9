/**
 * What the user says that outlives the task: standing instructions ("always use pnpm", "以后都用
 * pnpm"), corrections ("no, don't use npm — use pnpm") and the terms a correction rules out, and
 * decisions the user confirmed (the assistant asked "Should I use vitest?", the user said "yes").
 * Only the user's own words are read: never a tool output, a file, an attachment or the model's
 * text on its own.
 */
import { ATTACHMENT_BLOCK_OPEN } from '@threadline/protocol';
import { INSTRUCTION_PATTERNS, matchesAny } from './keywords';

/**
 * A sentence is an instruction that lasts when it says so: "always"/"never" leading a clause (a
 * description that merely has "never" in it is no rule), "from now on", "by default", "in this
 * project", "we use…", "remember to…", "use X instead of Y".
 */
const STANDING: RegExp[] = [
  /(?:^|[,;:]\s*)(?:(?:please|and|you should|you must|we|you|i)\s+)?(?:always|never)\b/i,
  /\b(?:from now on|going forward|from here on|as a rule|by default|in (?:this|our) (?:project|repo|repository|codebase|folder))\b/i,
  /\b(?:we|this project|this repo|our project) (?:always |only |never )?(?:use|uses|run|runs|prefer|prefers|build|builds|test|tests) (?:with )?\S/i,
  /^(?:please\s+)?remember (?:that|to)\b/i,
  /^(?:please\s+)?(?:prefer|use)\s+\S+.*\b(?:instead of|rather than|over|not)\s+\S/i,
  /(?:总是|始终|永远|一律|以后|今后|从现在起|从今以后|记住|默认|本项目|这个项目|这个仓库|我们(?:都|一直)?用|我们使用|统一用)/,
];

/** A sentence that corrects what came before: the new word wins over the old one. */
const CORRECTION: RegExp[] = [
  /^(?:no|nope|wrong|incorrect|not quite|actually|wait|stop)\b[,.!:;\s—-]/i,
  /^(?:that'?s|this is|it'?s) (?:wrong|not right|incorrect|not (?:what|how))\b/i,
  // "instead of" corrects when the sentence asks for something: "use fetch instead of axios".
  /^(?:please\s+)?(?:use|run|call|prefer|write|put|keep|try|switch to|go with|stick (?:to|with)|do)\b.*\b(?:instead of|rather than)\b/i,
  /\buse\s+\S+(?:\s+\S+)?,?\s+not\s+\S/i,
  /^(?:不对|不是|错了|其实|应该|别用|不要用)/,
  /而不是/,
];

/** Sentences that rule something out, and what (the term after the negation). */
const NEGATIONS: RegExp[] = [
  /\b(?:don'?t|do not|never|stop|no longer|avoid|quit)\s+(?:use|using|run|running|call|calling|invoke|invoking|install|installing|with)?\s*(`[^`]{1,60}`|[\w.@/:+-]{2,60})/gi,
  /\b(?:instead of|rather than)\s+(?:using\s+|running\s+)?(`[^`]{1,60}`|[\w.@/:+-]{2,60})/gi,
  /\b(?:not|no)\s+(`[^`]{1,60}`|[\w.@/:+-]{2,60})(?=\s*(?:[,.;!)]|$|—|-))/gi,
  /(?:不要|别|不用|不再|禁止|避免|而不是|不是)(?:用|使用|运行|调用|跑)?\s*(`[^`]{1,60}`|[A-Za-z0-9_.@/:+-]{2,60})/g,
];

/** Words a negation may be followed by that name nothing: "not the", "don't always". */
const NOT_A_TERM = new Set(
  'the a an it that this these those them to be so too any anything all always ever sure yet really just more much quite only here there now one'.split(
    ' ',
  ),
);

/** Affirmative first words of a reply. */
const YES =
  /^(?:yes|yep|yeah|yup|sure|ok(?:ay)?|go ahead|do it|please do|sounds good|agreed|correct|right|confirmed|lgtm|absolutely|definitely|exactly|是的?|好的?|可以|行|对的?|没问题|同意|就这样|确认|嗯)(?:[\s,.!。！，]|$)/i;

/** A question by which the assistant asks the user to decide. */
const DECISION_QUESTION =
  /^(?:(?:should|shall) (?:I|we)|do you want (?:me|us) to|would you like (?:me|us) to|(?:is it )?ok(?:ay)? (?:if|to)|can I|may I)\s+(.+?)\s*\?$/i;
const DECISION_QUESTION_ZH = /^(?:要不要|是否要?|需要我|我可以|要我)(.+?)(?:吗)?\s*[?？]$/;
/** "Should I continue?": a confirmation to go on, not a decision about the project. */
const NO_DECISION =
  /^(?:continue|proceed|go on|keep going|start|begin|do (?:that|this|it|so)|fix (?:it|this|that)|go ahead|try again|retry|commit|push|run it|继续|开始|修复它?)\b/i;

export interface StandingSentence {
  text: string;
  correction: boolean;
  /** What a correction rules out, lowercased (empty when it names nothing). */
  negates: string[];
}

/** The user's own text of a message: before any attached file's block, at most 4,000 characters. */
export function ownText(content: string): string {
  const at = content.indexOf(`\n${ATTACHMENT_BLOCK_OPEN}`);
  const own = at >= 0 ? content.slice(0, at) : content.startsWith(ATTACHMENT_BLOCK_OPEN) ? '' : content;
  return own.slice(0, 4000);
}

/** The terms a sentence rules out (`npm` in "use pnpm, not npm"), lowercased, backticks removed. */
export function negatedTerms(sentence: string): string[] {
  const out = new Set<string>();
  for (const re of NEGATIONS) {
    for (const m of sentence.matchAll(re)) {
      const raw = m[1]!
        .replace(/^`|`$/g, '')
        .replace(/[.,;:!?]+$/, '')
        .trim();
      const term = raw.toLowerCase();
      if (term.length < 2 || NOT_A_TERM.has(term)) continue;
      out.add(term);
    }
  }
  return [...out];
}

/** Standing instructions and corrections among the sentences of the user's message. */
export function standingSentences(sentences: readonly string[]): StandingSentence[] {
  const out: StandingSentence[] = [];
  for (const s of sentences) {
    const text = s.trim();
    if (text.length < 8 || text.length > 300 || /[?？]$/.test(text)) continue;
    // Text that tries to steer the model from outside is never kept, even typed by the user (a
    // pasted page).
    if (matchesAny(INSTRUCTION_PATTERNS, text)) continue;
    const correction = matchesAny(CORRECTION, text);
    const negates = negatedTerms(text);
    // A correction counts when it rules something out; anything else only when it says it lasts.
    if ((correction && negates.length > 0) || matchesAny(STANDING, text))
      out.push({ text, correction: correction && negates.length > 0, negates });
  }
  return out;
}

/**
 * A decision the user confirmed: the assistant's question that ends its message, answered by a
 * reply that starts with yes. The decision in the question's own words ("Use vitest for the new
 * tests"), or null.
 */
export function confirmedDecision(question: string, reply: string): string | null {
  const answer = reply.trim();
  if (answer === '' || !YES.test(answer)) return null;
  const q = question.trim();
  const m = DECISION_QUESTION.exec(q) ?? DECISION_QUESTION_ZH.exec(q);
  if (!m) return null;
  const body = m[1]!.trim();
  // "vitest or jest?": a yes does not say which.
  if (/\bor\b|还是/i.test(body)) return null;
  if (NO_DECISION.test(body) || matchesAny(INSTRUCTION_PATTERNS, body)) return null;
  // Three words at least (or six CJK characters): "use vitest for tests", not "do it".
  const words = body.split(/\s+/).filter(Boolean).length;
  if (words < 3 && !/[\u4e00-\u9fff]{6,}/.test(body)) return null;
  if (body.length > 300) return null;
  return body.charAt(0).toUpperCase() + body.slice(1);
}
