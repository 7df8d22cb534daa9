/**
 * A project's memory as a file: JSON (`threadline.project-memory.v1`, validated with zod when it
 * comes back) or Markdown (to read; it can be imported too: its sections name the kinds). What is
 * imported goes to the inbox: a file from elsewhere decides nothing on its own.
 */
import * as z from 'zod';
import {
  AppError,
  PROJECT_EXPORT_FORMAT,
  ProjectExportFactSchema,
  ProjectExportSchema,
  type ProjectExportFact,
  type ProjectFact,
  type ProjectFactKind,
} from '@threadline/protocol';
import type { ProposedFact } from '@threadline/store';

const TITLES: ReadonlyArray<readonly [ProjectFactKind, string]> = [
  ['instruction', 'Standing instructions'],
  ['decision', 'Decisions the user confirmed'],
  ['command', 'Commands'],
  ['path', 'Paths'],
];
const PINNED = ' (pinned)';

/** The facts a project's memory holds (accepted ones, stale ones too), as exported. */
function exported(facts: readonly ProjectFact[]): ProjectFact[] {
  return facts.filter((f) => f.status === 'accepted');
}

/** A file name of the project (its folder's name) and the day. */
export function exportFilename(project: string, at: number, ext: 'json' | 'md'): string {
  const name = project.split(/[\\/]/).filter(Boolean).at(-1) ?? 'project';
  const day = new Date(at).toISOString().slice(0, 10);
  return `${name.replace(/[^\w.-]+/g, '_')}-memory-${day}.${ext}`;
}

export function exportJson(project: string, facts: readonly ProjectFact[], at: number): string {
  const file: z.input<typeof ProjectExportSchema> = {
    format: PROJECT_EXPORT_FORMAT,
    project,
    exportedAt: at,
    facts: exported(facts).map((f) => ({
      kind: f.kind,
      content: f.content,
      detail: f.detail,
      pinned: f.pinned,
      evidence: f.evidence,
    })),
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

function markdownItem(f: ProjectFact): string {
  const text =
    f.kind === 'command' || f.kind === 'path' ? `\`${f.content.replace(/`/g, "'")}\`` : f.content.replace(/\s+/g, ' ');
  const purpose = f.kind === 'command' && f.detail ? ` — ${f.detail}` : '';
  return `- ${text}${purpose}${f.pinned ? PINNED : ''}`;
}

export function exportMarkdown(project: string, facts: readonly ProjectFact[], at: number): string {
  const lines = [
    `# Project memory — ${project}`,
    '',
    `Exported by Threadline on ${new Date(at).toISOString().slice(0, 10)}. <!-- ${PROJECT_EXPORT_FORMAT} -->`,
  ];
  const list = exported(facts);
  for (const [kind, title] of TITLES) {
    const of = list.filter((f) => f.kind === kind);
    if (of.length === 0) continue;
    lines.push('', `## ${title}`, '');
    for (const f of of) {
      lines.push(markdownItem(f));
      const e = f.evidence[0];
      if (e)
        lines.push(`  - verified: ${e.verifiedBy.replace(/\s+/g, ' ')} (${new Date(e.at).toISOString().slice(0, 10)})`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The facts of a Markdown export: `## <section>` names the kind, each `- ` line (not indented) one fact. */
function parseMarkdown(text: string): unknown[] {
  const out: unknown[] = [];
  let kind: ProjectFactKind | null = null;
  for (const line of text.split(/\r?\n/)) {
    const h = /^##\s+(.+?)\s*$/.exec(line);
    if (h) {
      kind = TITLES.find(([, t]) => t.toLowerCase() === h[1]!.toLowerCase())?.[0] ?? null;
      continue;
    }
    const item = /^[-*]\s+(.+)$/.exec(line);
    if (!kind || !item) continue;
    let body = item[1]!.trim();
    const pinned = body.endsWith(PINNED);
    if (pinned) body = body.slice(0, -PINNED.length).trim();
    let detail: string | null = null;
    if (kind === 'command' || kind === 'path') {
      const m = /^`([^`]+)`(?:\s+—\s+(\w+))?$/.exec(body);
      if (!m) continue;
      body = m[1]!;
      detail = m[2] ?? null;
    }
    out.push({ kind, content: body, detail, pinned });
  }
  return out;
}

/** What an exported file holds, checked fact by fact; invalid_input when it is no export at all. */
export function parseExport(text: string): ProjectExportFact[] {
  const trimmed = text.trim();
  let raw: unknown[];
  if (trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      throw new AppError('invalid_input', 'The file is not valid JSON.', 'not_an_export');
    }
    const file = ProjectExportSchema.safeParse(json);
    if (!file.success)
      throw new AppError(
        'invalid_input',
        `The file is not a Threadline project memory export (${file.error.issues[0]?.path.join('.') || 'format'}: ${file.error.issues[0]?.message ?? 'invalid'}).`,
        'not_an_export',
      );
    raw = file.data.facts;
  } else if (/^# Project memory/m.test(trimmed) || trimmed.includes(PROJECT_EXPORT_FORMAT)) {
    raw = parseMarkdown(trimmed);
  } else {
    throw new AppError(
      'invalid_input',
      'The file is not a Threadline project memory export (JSON or Markdown).',
      'not_an_export',
    );
  }
  return raw.flatMap((r) => {
    const f = ProjectExportFactSchema.safeParse(r);
    return f.success ? [f.data] : [];
  });
}

/**
 * Imported facts as candidates: a path only relative and inside (no `..`, not absolute), with the
 * evidence that it was imported (and what verified it where it came from).
 */
export function importedProposals(
  facts: readonly ProjectExportFact[],
  at: number,
): Omit<ProposedFact, 'source' | 'accept'>[] {
  return facts.flatMap((f) => {
    if (f.kind === 'path' && (/^(?:[/\\~]|[A-Za-z]:)/.test(f.content) || f.content.split(/[\\/]/).includes('..')))
      return [];
    const was = f.evidence?.[0]?.verifiedBy;
    return [
      {
        kind: f.kind,
        content: f.content,
        detail: f.detail ?? null,
        fingerprint: null,
        evidence: {
          sessionId: null,
          messageId: null,
          toolCallId: null,
          verifiedBy: was ? `imported (verified where it came from: ${was.slice(0, 400)})` : 'imported',
          at,
        },
      },
    ];
  });
}
