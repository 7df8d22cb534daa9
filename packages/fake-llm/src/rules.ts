import { isSummaryRequest, lastOfRole, deterministicSummary } from './summary';
import { contentText } from './tokens';
import type { ChatRequestView, FakeMatch, FakeReply, FakeRule } from './types';

interface LiveRule {
  rule: FakeRule;
  left: number;
}

function userUnanswered(req: ChatRequestView): boolean {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const role = req.messages[i]!.role;
    if (role === 'user') return true;
    if (role === 'assistant' || role === 'tool') return false;
  }
  return false;
}

function matches(m: FakeMatch | undefined, req: ChatRequestView): boolean {
  const want = m?.summaryRequest;
  // Rules that do not ask for summary requests never capture them: a summarizer prompt quotes the
  // whole transcript, so an ordinary `lastUserIncludes` rule would otherwise answer it.
  if (want === undefined ? req.isSummaryRequest : want !== req.isSummaryRequest) return false;
  // Nor title requests (they quote the user's first message), unless a rule asks for them.
  const wantTitle = m?.titleRequest;
  if (wantTitle === undefined ? isTitleRequest(req) : wantTitle !== isTitleRequest(req)) return false;
  if (!m) return true;
  // Only while the last user message is still unanswered: once the model has replied (e.g. with a
  // tool call) the follow-up requests must not re-trigger the rule, or a script would loop forever.
  if (m.lastUserIncludes !== undefined && (!userUnanswered(req) || !req.lastUserText.includes(m.lastUserIncludes)))
    return false;
  if (m.hasTools !== undefined && m.hasTools !== req.tools.length > 0) return false;
  if (m.systemIncludes !== undefined) {
    const sys = req.messages
      .filter((x) => x.role === 'system')
      .map((x) => contentText(x.content))
      .join('\n');
    if (!sys.includes(m.systemIncludes)) return false;
  }
  if (m.lastToolResultIncludes !== undefined) {
    const last = req.messages[req.messages.length - 1];
    if (!last || last.role !== 'tool' || !contentText(last.content).includes(m.lastToolResultIncludes)) return false;
  }
  return true;
}

/** A session-title request (Threadline's: "Title this conversation…" then the first exchange). */
export function isTitleRequest(req: ChatRequestView): boolean {
  return /^title this conversation\b/i.test(req.lastUserText.trim());
}

/** "Talk: " and the first four words the user wrote: deterministic, and unlike the first line. */
export function deterministicTitle(request: string): string {
  const user = /\nUser:\n([\s\S]*?)(\n\nAssistant:|$)/.exec(request)?.[1] ?? '';
  const words = user
    .replace(/[#*`>_-]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 4);
  return `Talk: ${words.join(' ')}`;
}

/** The default answer: a deterministic summary for summary requests, a title for title requests, else an echo. */
export function defaultReply(req: ChatRequestView): FakeReply {
  if (req.isSummaryRequest) return { content: deterministicSummary(req.messages) };
  if (isTitleRequest(req)) return { content: deterministicTitle(req.lastUserText) };
  const last = req.messages[req.messages.length - 1];
  if (last?.role === 'tool') return { content: `Tool result received: ${contentText(last.content).slice(0, 200)}` };
  return { content: `You said: ${req.lastUserText}` };
}

/**
 * Chooses the reply of each request: queued replies first (in order, whatever the request; the
 * server takes them before its window check), then the first live matching rule, then the
 * configured default (never for summary requests), then `defaultReply`.
 */
export class ReplyBook {
  private rules: LiveRule[] = [];
  private queue: FakeReply[] = [];
  constructor(private fallback?: FakeReply | ((req: ChatRequestView) => FakeReply)) {}

  setRules(rules: FakeRule[], fallback?: FakeReply | ((req: ChatRequestView) => FakeReply)): void {
    this.rules = rules.map((rule) => ({ rule, left: rule.times ?? Infinity }));
    if (fallback !== undefined) this.fallback = fallback;
  }

  enqueue(replies: FakeReply[]): void {
    this.queue.push(...replies);
  }

  clear(): void {
    this.rules = [];
    this.queue = [];
  }

  takeQueued(): FakeReply | undefined {
    return this.queue.shift();
  }

  /** The first live matching rule's reply, else the default. */
  pick(req: ChatRequestView): FakeReply {
    for (const live of this.rules) {
      if (live.left <= 0 || !matches(live.rule.match, req)) continue;
      live.left -= 1;
      const r = live.rule.reply;
      return typeof r === 'function' ? r(req) : r;
    }
    if (this.fallback && !req.isSummaryRequest && !isTitleRequest(req))
      return typeof this.fallback === 'function' ? this.fallback(req) : this.fallback;
    return defaultReply(req);
  }
}

export function buildRequestView(body: Record<string, unknown>, promptTokens: number, index: number): ChatRequestView {
  const messages = Array.isArray(body.messages) ? (body.messages as ChatRequestView['messages']) : [];
  const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
  return {
    model: typeof body.model === 'string' ? body.model : 'fake-model',
    messages,
    tools: Array.isArray(body.tools) ? body.tools : [],
    stream: body.stream === true,
    includeUsage: streamOptions?.include_usage === true,
    promptTokens,
    isSummaryRequest: isSummaryRequest(messages),
    lastUserText: contentText(lastOfRole(messages, 'user')?.content),
    index,
  };
}
