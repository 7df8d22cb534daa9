import path from 'node:path';
import type { RuleBlock, RuleMatch, RuleOptions } from '@threadline/protocol';
import type { CommandPart } from './command';
import { allowsPart } from './match';
import { concerns, floorOf, type CallFacts, type DecideContext } from './decide';

/** Prefixes offered for one command: at most this many words. */
const PREFIX_WORDS_MAX = 8;
/** Folders offered for a path: the path's own and this many above it. */
const FOLDERS_UP = 4;

/**
 * The words a card offers first: the program and the sub-commands after it (`npm run test`,
 * `git status`), stopping at an option, a path or a file name, at most three.
 */
function preferredLength(part: CommandPart, plainLead: number): number {
  let n = 1;
  while (n < Math.min(plainLead, 3)) {
    const w = part.words[n]!.text;
    if (w.startsWith('-') || w.includes('/') || w.includes('.')) break;
    n += 1;
  }
  return n;
}

function commandOptions(
  part: CommandPart,
  sandbox: 'only' | 'also_outside',
  tool: string,
): RuleOptions['parts'][number] | null {
  let plainLead = 0;
  while (plainLead < part.words.length && part.words[plainLead]!.plain) plainLead++;
  if (plainLead === 0) return null;
  const options: RuleMatch[] = [];
  // Narrowest first: exactly this command (when every word is plain), then shorter prefixes.
  if (plainLead === part.words.length && part.words.length <= 32)
    options.push({ kind: 'command', tool, words: part.words.map((w) => w.text), more: false, sandbox });
  for (let n = Math.min(plainLead, PREFIX_WORDS_MAX); n >= 1; n--)
    options.push({ kind: 'command', tool, words: part.words.slice(0, n).map((w) => w.text), more: true, sandbox });
  const want = preferredLength(part, plainLead);
  const preferred = options.findIndex((o) => o.kind === 'command' && o.more && o.words.length === want);
  return { options, preferred: Math.max(0, preferred) };
}

/**
 * What the card of an asking call can save, built from the call: for a command line one entry per
 * simple command that no allow rule covers yet (the same one once), for a file tool the folders
 * its path is in, for an MCP tool the tool or its whole server. `block` says why no rule may allow
 * it (a floor, an ask rule, a command not read exactly or one that writes to a file).
 * `pathIsFolder`: the file tool's path is a folder (list_dir, grep), offered itself.
 */
export function ruleOptions(
  facts: CallFacts,
  ctx: DecideContext,
  asked: { block: RuleBlock | null },
  pathIsFolder: boolean,
): RuleOptions {
  let block: RuleBlock | null = asked.block ?? floorOf(facts, ctx);
  const parts: RuleOptions['parts'] = [];
  const { tool } = facts;
  if (facts.command) {
    const read = facts.command;
    if (!read.ok) return { parts, blocked: block ?? 'unreadable', folder: ctx.folder };
    const inSandbox = tool.sandboxable && ctx.policy === 'sandboxed' && ctx.sandbox.available && !facts.leave;
    const allow = ctx.rules.filter(
      (r) =>
        r.decision === 'allow' &&
        r.match.kind === 'command' &&
        concerns(r.match, tool) &&
        (inSandbox || r.match.sandbox === 'also_outside'),
    );
    const seen = new Set<string>();
    for (const part of read.parts) {
      if (allow.some((r) => r.match.kind === 'command' && allowsPart(r.match, part))) continue;
      const key = JSON.stringify([part.assigns, part.redirects, part.words]);
      if (seen.has(key)) continue;
      seen.add(key);
      if (part.assigns > 0 || part.redirects) block ??= 'redirect';
      const offered = commandOptions(part, inSandbox ? 'only' : 'also_outside', tool.name);
      if (offered) parts.push(offered);
      else block ??= 'unreadable';
    }
    if (facts.cwdOutside) block ??= 'unreadable';
  } else if (facts.access) {
    const real = facts.access.path;
    const options: RuleMatch[] = [];
    if (facts.access.zone === 'inside') options.push({ kind: 'path', tool: tool.name, scope: { kind: 'inside' } });
    let dir = pathIsFolder ? real : path.dirname(real);
    for (let up = 0; up <= FOLDERS_UP; up++) {
      if (path.parse(dir).root === dir) break;
      options.push({ kind: 'path', tool: tool.name, scope: { kind: 'folder', path: dir } });
      dir = path.dirname(dir);
    }
    if (facts.access.zone !== 'inside') options.push({ kind: 'path', tool: tool.name, scope: { kind: 'outside' } });
    parts.push({ options, preferred: 0 });
  } else if (tool.mcp) {
    parts.push({
      options: [
        { kind: 'mcp', server: tool.mcp.server, tool: tool.mcp.tool },
        { kind: 'mcp', server: tool.mcp.server, tool: null },
      ],
      preferred: 0,
    });
  } else parts.push({ options: [{ kind: 'tool', tool: tool.name }], preferred: 0 });
  return { parts, ...(block ? { blocked: block } : {}), folder: ctx.folder };
}
