import type { ChatMessage } from '@threadline/protocol';
import type { Summarizer } from './prompts';

const PATH_RE = /(?:^|[\s"'`(=])((?:\.{0,2}\/|[A-Za-z]:\\)?(?:[\w.-]+[\\/])+[\w.-]+\.\w{1,8})(?=$|[\s"'`),:;])/g;

function clip(text: string, n: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n)}…` : flat;
}

function commandOf(args: string): string | null {
  try {
    const v = JSON.parse(args) as Record<string, unknown>;
    for (const k of ['command', 'cmd', 'script']) if (typeof v[k] === 'string') return v[k] as string;
  } catch {
    /* arguments that are not JSON: not a shell call */
  }
  return null;
}

/**
 * A deterministic summary with no model call: the user's requests, files named, commands run and
 * the last assistant words, in the sections of our summary prompt. Used by the CLI when no
 * provider or fixed text is given, and usable by the runtime as a last-resort fallback.
 */
export function extractiveSummary(
  messages: readonly ChatMessage[],
  previous: readonly string[] = [],
  maxChars = 4000,
): string {
  const goals = messages.filter((m) => m.role === 'user' && m.content).map((m) => clip(m.content!, 240));
  const files = new Set<string>();
  const commands: string[] = [];
  for (const m of messages) {
    for (const match of (m.content ?? '').slice(0, 20_000).matchAll(PATH_RE)) if (files.size < 40) files.add(match[1]!);
    for (const c of m.tool_calls ?? []) {
      const cmd = commandOf(c.function.arguments);
      commands.push(clip(cmd ?? `${c.function.name} ${c.function.arguments}`, 160));
      for (const match of c.function.arguments.matchAll(PATH_RE)) if (files.size < 40) files.add(match[1]!);
    }
  }
  const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant' && m.content);
  const list = (xs: readonly string[]) => (xs.length ? xs.map((x) => `- ${x}`).join('\n') : '- none');
  const out = [
    previous.length ? `## Earlier summary\n${previous.map((p) => clip(p, 1200)).join('\n')}` : '',
    `## Goals\n${list(goals.slice(-6))}`,
    `## Files touched\n${list([...files].slice(-20))}`,
    `## Commands run\n${list(commands.slice(-10))}`,
    `## Open items\n- last assistant message: ${lastAssistant ? clip(lastAssistant.content!, 400) : 'none'}`,
  ]
    .filter(Boolean)
    .join('\n\n');
  return out.length > maxChars ? `${out.slice(0, maxChars)}…` : out;
}

export const extractiveSummarizer: Summarizer = async (req) =>
  extractiveSummary(req.messages, req.previousSummaries, req.maxSummaryTokens * 4);
