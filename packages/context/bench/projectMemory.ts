/**
 * Project memory on replayed pairs of sessions in one folder: the transcripts of one repository
 * (`owner__repo-<issue>`) taken in order, the first session's promotions accepted whole (as a
 * user who accepts all would), its block built under the default budget; then the second
 * session's probing calls (`ls`, `find`, `cat`, `head`, `sed -n`, `grep`, a viewer's `view`…)
 * counted, those that look again at a path the first session verified, and those of them the
 * block already names. "With project memory" is the second figure less the third: the calls the
 * block answers before they are made. The model's choices are not replayed (the transcripts are
 * fixed), so this measures what the block offers, not what a model does with it.
 */
import type { ChatMessage, ProjectFact } from '@threadline/protocol';
import { buildProjectBlock, findPaths, projectPromotions } from '../src/index';
import { parseToolArgs } from '../src/memory/extract';
import { countTextTokens } from '../src/tokens/encoder';
import type { Transcript } from '../src/cli/transcripts';
import { MODEL, out } from './common';
import { table } from './stats';

const BUDGET = 800;
/** A call that only looks: its paths are what it looks at. */
const PROBE = /^(?:ls|ll|dir|tree|find|cat|nl|head|tail|less|more|wc|stat|file|sed\s+-n|grep|rg|awk)\b/;
const VIEW_TOOL = /view|read|list|open|cat/i;

/** A path as the project knows it: relative to the repository's folder in the sandbox it ran in. */
function rel(p: string): string {
  return p
    .replace(/^\/(?:testbed|workspace\/[^/]+|repo|app)(?:\/|$)/, '')
    .replace(/^(?:\.\/)+/, '')
    .replace(/\/+$/, '');
}

/** What each call of a session looked at (one entry per probing call: its paths). */
function probes(messages: readonly ChatMessage[]): string[][] {
  const out: string[][] = [];
  for (const m of messages) {
    for (const tc of m.tool_calls ?? []) {
      const args = parseToolArgs(tc.function.arguments);
      const command = typeof args.command === 'string' ? args.command : null;
      if (command !== null && !/^(?:view|create|str_replace|insert|undo_edit)$/.test(command)) {
        // Every part of a line, piped parts too: a probe is a probe whether or not it proves anything.
        for (const raw of command.split(/\s*(?:&&|\|\||;|\|)\s*/)) {
          const cd = /^cd\s+(\S+)$/.exec(raw.trim());
          if (cd) continue;
          if (!PROBE.test(raw.trim())) continue;
          const folder = /^cd\s+(\S+)\s*&&/.exec(command)?.[1] ?? null;
          const named = findPaths(raw.trim().replace(/^\S+/, '')).map((p) =>
            folder && !p.startsWith('/') ? `${folder}/${p}` : p,
          );
          out.push((named.length > 0 ? named : folder ? [folder] : []).map(rel).filter((p) => p !== ''));
        }
      } else if (VIEW_TOOL.test(tc.function.name) || args.command === 'view') {
        const p = ['path', 'file_path', 'file'].map((k) => args[k]).find((v) => typeof v === 'string');
        if (typeof p === 'string') out.push([rel(p)]);
      }
    }
  }
  return out.filter((paths) => paths.length > 0);
}

/** The first session's promotions as accepted facts of the project (paths relative to its folder). */
function acceptedFacts(messages: readonly ChatMessage[]): ProjectFact[] {
  const seen = new Set<string>();
  const facts: ProjectFact[] = [];
  projectPromotions(messages.filter((m) => m.role !== 'system')).forEach((p, i) => {
    const content = p.kind === 'path' ? rel(p.content) : p.content;
    const key = `${p.kind}:${content}`;
    if (content === '' || seen.has(key)) return;
    seen.add(key);
    facts.push({
      id: `f${i}`,
      project: '/project',
      kind: p.kind,
      content,
      detail: p.detail,
      status: 'accepted',
      pinned: false,
      stale: null,
      source: 'session',
      evidence: [],
      fingerprint: null,
      supersededBy: null,
      verifiedAt: 0,
      checkedAt: null,
      createdAt: i,
      updatedAt: i,
    });
  });
  return facts;
}

/**
 * Pairs of sessions in one folder: consecutive transcripts of one repository (another task in
 * the same code), and each of those transcripts after itself (the same task taken up again, as
 * after a crash or the next day: the most a session can repeat of the one before).
 */
function pairs(transcripts: readonly Transcript[]): { a: Transcript; b: Transcript; again: boolean }[] {
  const byRepo = new Map<string, Transcript[]>();
  for (const t of transcripts) {
    const repo = /__(.+)-\d+$/.exec(t.name)?.[1];
    if (!repo) continue;
    byRepo.set(repo, [...(byRepo.get(repo) ?? []), t]);
  }
  const lists = [...byRepo.values()].filter((l) => l.length > 1);
  return [
    ...lists.flatMap((list) => list.slice(1).map((b, i) => ({ a: list[i]!, b, again: false }))),
    ...lists.flat().map((t) => ({ a: t, b: t, again: true })),
  ];
}

export function projectMemoryBench(transcripts: readonly Transcript[]): void {
  const rows: (string | number)[][] = [];
  const sums = { other: { probed: 0, repeated: 0, answered: 0 }, again: { probed: 0, repeated: 0, answered: 0 } };
  for (const { a, b, again: same } of pairs(transcripts)) {
    const facts = acceptedFacts(a.messages);
    const block = buildProjectBlock(facts, {
      root: '/project',
      maxTokens: BUDGET,
      count: (t) => countTextTokens(t, MODEL),
    });
    const verified = new Set(facts.filter((f) => f.kind === 'path').map((f) => f.content));
    const named = new Set(block.text?.split('\n').map((l) => l.replace(/^- /, '').replace(/\/$/, '')) ?? []);
    const calls = probes(b.messages);
    const again = calls.filter((paths) => paths.some((p) => verified.has(p)));
    const known = again.filter((paths) => paths.every((p) => named.has(p)));
    const sum = same ? sums.again : sums.other;
    sum.probed += calls.length;
    sum.repeated += again.length;
    sum.answered += known.length;
    rows.push([
      same ? `${a.name.replace(/^.*__/, '')} again` : `${a.name.replace(/^.*__/, '')} → ${b.name.replace(/^.*__/, '')}`,
      `${facts.filter((f) => f.kind === 'command').length} / ${verified.size}`,
      `${block.text ? countTextTokens(block.text, MODEL) : 0} (${block.shown} facts)`,
      calls.length,
      again.length,
      known.length,
      calls.length - known.length,
    ]);
  }
  out(
    `## Project memory: replayed pairs of sessions in one folder (${rows.length} pairs, block budget ${BUDGET} tokens)`,
  );
  out(
    'first: commands / paths it verified (accepted whole); second: its probing calls, those that look again at what the first verified, those the block already names; "with" = probing calls less those',
  );
  out(
    table(
      [
        'pair',
        'first: commands / paths',
        'block tokens',
        'second: probes',
        'repeat first',
        'named by block',
        'probes with memory',
      ],
      rows,
    ),
  );
  for (const [what, t] of [
    ['another task in the same folder', sums.other],
    ['the same task again', sums.again],
  ] as const)
    out(
      `${what}: the second sessions' probing calls ${t.probed} without project memory, ${t.probed - t.answered} with it (${t.answered} of the ${t.repeated} that look again at what the first verified are named by the block)`,
    );
}
