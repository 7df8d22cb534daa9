/**
 * Promotion: what a refresh's messages verified that outlives the session, as candidates for the
 * working folder's project memory, each with its evidence. Verified means: a command that exited
 * 0 (a test, a build, a run: `commandPurpose`), a path a successful read, listing, edit or probe
 * named, the user's own standing instructions and corrections, and a decision the user said yes to.
 * Nothing the model merely says is promoted; a tool output never becomes an instruction.
 */
import { MCP_TOOL_SEPARATOR, type ChatMessage, type ProjectFactKind } from '@threadline/protocol';
import type { ProjectPromotion } from './types';
import { commandParts, commandPurpose } from './commandPurpose';
import { callFolder, commandOf, inFolder, parseToolArgs } from './extract';
import { sentences } from './sentences';
import { FAILURE_MARKERS, SUCCESS_MARKERS, matchesAny } from './keywords';
import { findPaths, isUnhelpfulPath } from './paths';
import { isShellToolName } from './shellTool';
import { confirmedDecision, ownText, standingSentences } from './standing';

/** Tools that read, list or change the path they are given (any dialect's names). */
const PATH_TOOL = /read|view|open|list|edit|write|str_replace|create|cat/i;
const PATH_KEYS = ['path', 'file_path', 'filePath', 'target_file', 'file', 'dir', 'directory'];
/** Commands whose success proves the paths they name exist. */
const PROBE =
  /^(?:cd\s+\S+\s*&&\s*)*(?:ls|ll|dir|cat|head|tail|wc|stat|file|less|more|bat|tree|du|nl|realpath|readlink|test\s+-[edfrsx]|\[\s+-[edfrsx]|sed\s+-n|grep|rg|find)\b/;
/** At most this many promotions from one refresh (a session that reads 300 files proposes the first). */
const MAX_PROMOTIONS = 40;
const MAX_CONTENT = 400;

interface Call {
  name: string;
  args: Record<string, unknown>;
  messageId: string | null;
}

function idOf(m: ChatMessage): string | null {
  const id = (m as { id?: unknown }).id;
  return typeof id === 'string' ? id : null;
}

function metaOf(m: ChatMessage): Record<string, unknown> {
  const meta = (m as { meta?: unknown }).meta;
  return meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : {};
}

function isMcp(name: string): boolean {
  return name.includes(MCP_TOOL_SEPARATOR);
}

/** The runtime's own word on a result when it has one (`meta.status`), else what the text says. */
function succeeded(result: ChatMessage, shell: boolean): boolean {
  const meta = metaOf(result);
  if (typeof meta.status === 'string' && meta.status !== 'ok') return false;
  if (typeof meta.exitCode === 'number' && meta.exitCode !== 0) return false;
  const text = result.content ?? '';
  if (shell) return !matchesAny(FAILURE_MARKERS, text) && matchesAny(SUCCESS_MARKERS, text);
  if (meta.status === 'ok') return true;
  return (
    !/^(?:Error\b|denied:|aborted:|not run:)/.test(text) &&
    !/\b(?:error|failed|not found|no such file)\b/i.test(text.slice(0, 400))
  );
}

function cut(text: string): string {
  return text.length > MAX_CONTENT ? text.slice(0, MAX_CONTENT) : text;
}

function fromShell(command: string, call: Call, callId: string, out: ProjectPromotion[]): void {
  for (const part of commandParts(command)) {
    const evidence = { messageId: call.messageId, toolCallId: callId, verifiedBy: cut(`$ ${part} → exit 0`) };
    const purpose = commandPurpose(part);
    if (purpose) out.push({ kind: 'command', content: cut(part), detail: purpose, evidence });
    if (!PROBE.test(part)) continue;
    const cwd = callFolder(part, call.args);
    const body = part.replace(/^(?:cd\s+\S+\s*&&\s*)+/, '');
    const named = findPaths(body.replace(/^\S+/, '')).filter((p) => !isUnhelpfulPath(p) && p !== cwd);
    for (const p of named) out.push({ kind: 'path', content: inFolder(p, cwd), detail: null, evidence });
    // `cd src && ls`: the folder it listed is there.
    if (named.length === 0 && cwd !== null && !isUnhelpfulPath(cwd) && /^(?:ls|ll|dir|tree)\b/.test(body))
      out.push({ kind: 'path', content: cwd, detail: null, evidence });
  }
}

function fromPathTool(call: Call, callId: string, out: ProjectPromotion[]): void {
  if (!PATH_TOOL.test(call.name)) return;
  const raw = PATH_KEYS.map((k) => call.args[k]).find((v): v is string => typeof v === 'string' && v.trim() !== '');
  if (raw === undefined) return;
  const p = raw.trim();
  const folder = /^(?:\.\/?|\.)$/.test(p);
  if (!folder && (findPaths(p)[0] !== p || isUnhelpfulPath(p))) return;
  if (folder) return; // the folder itself: nothing to remember
  out.push({
    kind: 'path',
    content: p,
    detail: null,
    evidence: { messageId: call.messageId, toolCallId: callId, verifiedBy: cut(`${call.name} ${p}`) },
  });
}

function fromUser(m: ChatMessage, question: string | null, out: ProjectPromotion[]): void {
  const content = m.content ?? '';
  if (/^\s*\[(?:CFPM_|THREADLINE_)/.test(content)) return;
  // A paste cut because it was too long, and the app's own commands, are not the user's instructions.
  const meta = metaOf(m);
  if (meta.truncated === true) return;
  const visibility = (m as { visibility?: { agent?: boolean } }).visibility;
  if (visibility?.agent === false) return;
  const text = ownText(content);
  const said = sentences(text, { thought: true }).slice(0, 40);
  const messageId = idOf(m);
  for (const s of standingSentences(said))
    out.push({
      kind: 'instruction',
      content: cut(s.text),
      detail: s.correction ? 'correction' : null,
      ...(s.negates.length > 0 ? { negates: s.negates } : {}),
      evidence: { messageId, toolCallId: null, verifiedBy: cut(s.text) },
    });
  if (question !== null) {
    const reply = said[0] ?? text.trim();
    const decision = confirmedDecision(question, reply);
    if (decision !== null)
      out.push({
        kind: 'decision',
        content: cut(decision),
        detail: null,
        evidence: { messageId, toolCallId: null, verifiedBy: cut(`“${question}” — “${reply.slice(0, 120)}”`) },
      });
  }
}

/** The last sentence of an assistant's answer when it is a question to the user (no tool calls). */
function closingQuestion(m: ChatMessage): string | null {
  if ((m.tool_calls?.length ?? 0) > 0) return null;
  const last = sentences(m.content ?? '', { thought: true }).at(-1);
  return last !== undefined && /[?？]$/.test(last) ? last : null;
}

/** The user's words first, then commands, then paths: what a cap leaves out is the most plentiful. */
const KIND_ORDER: Record<ProjectFactKind, number> = { instruction: 0, decision: 1, command: 2, path: 3 };

/**
 * The candidates a window of messages verifies, one per kind and content (the first evidence
 * kept), the user's words first. Messages are the runtime's (with `id` and `meta`) or plain chat;
 * `previous` is the message just before the window (the question a reply in it answers).
 */
export function projectPromotions(
  messages: readonly ChatMessage[],
  previous: ChatMessage | null = null,
): ProjectPromotion[] {
  const calls = new Map<string, Call>();
  const out: ProjectPromotion[] = [];
  let question: string | null = previous?.role === 'assistant' ? closingQuestion(previous) : null;
  for (const m of messages) {
    if (m.role === 'assistant') {
      question = closingQuestion(m);
      for (const tc of m.tool_calls ?? [])
        calls.set(tc.id, { name: tc.function.name, args: parseToolArgs(tc.function.arguments), messageId: idOf(m) });
    } else if (m.role === 'tool') {
      const callId = m.tool_call_id;
      const call = callId !== undefined ? calls.get(callId) : undefined;
      if (!call || callId === undefined || isMcp(call.name)) continue;
      // What ran: the gate may have run other arguments than the model's (meta.ranArguments).
      const ran = metaOf(m).ranArguments;
      const args = typeof ran === 'string' ? parseToolArgs(ran) : call.args;
      const command = isShellToolName(call.name) ? commandOf(args) : null;
      if (!succeeded(m, command !== null)) continue;
      if (command !== null) fromShell(command, { ...call, args }, callId, out);
      else fromPathTool({ ...call, args }, callId, out);
    } else if (m.role === 'user') {
      fromUser(m, question, out);
      question = null;
    }
  }
  const seen = new Set<string>();
  return out
    .map((p, i) => ({ p, i }))
    .sort((a, b) => KIND_ORDER[a.p.kind] - KIND_ORDER[b.p.kind] || a.i - b.i)
    .map(({ p }) => p)
    .filter((p) => {
      const key = `${p.kind}\u0000${p.content.trim().toLowerCase()}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_PROMOTIONS);
}
