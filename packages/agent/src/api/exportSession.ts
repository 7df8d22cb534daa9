import {
  AttachmentRefSchema,
  parseNotice,
  type CompactionRecord,
  type SessionSummary,
  type StoredMessage,
} from '@threadline/protocol';
import {
  anotherVersionSentence,
  cancelledSentence,
  dividerSentence,
  noticeSentence,
  type ExportLanguage,
} from './noticeSentences';

function slug(title: string): string {
  const s = title
    .toLowerCase()
    .replace(/[^a-z0-9\u4e00-\u9fff]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s.slice(0, 60) || 'session';
}

function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const f = '`'.repeat(longest + 1);
  return `${f}\n${text}\n${f}`;
}

/** An attached image's bytes and type, for the Markdown export (null: not stored any more). */
export type ImageBytes = (id: string) => { mime: string; bytes: Uint8Array } | null;

/**
 * A message's attached images as Markdown images with the picture inside (a data URL), so the
 * exported file shows them on its own, wherever it is opened. Other attachments are text, in the
 * message already.
 */
function imagesOf(m: StoredMessage, image: ImageBytes | undefined): string[] {
  const raw = m.meta?.['attachments'];
  if (!image || !Array.isArray(raw)) return [];
  return raw.flatMap((r) => {
    const ref = AttachmentRefSchema.safeParse(r);
    if (!ref.success || ref.data.kind !== 'image') return [];
    const found = image(ref.data.id);
    if (!found) return [];
    const alt = ref.data.name.replace(/[[\]\\]/g, '');
    return [`![${alt}](data:${found.mime};base64,${Buffer.from(found.bytes).toString('base64')})`];
  });
}

function markdownOf(m: StoredMessage, lang: ExportLanguage, image?: ImageBytes): string | null {
  if (!m.visibility.user) return null;
  // A notice is a short sentence for people; the JSON export keeps its structure.
  const parsed = m.role === 'user' ? parseNotice(m.content) : null;
  if (parsed) {
    const sentence = noticeSentence(parsed, lang);
    return sentence === null ? null : `> ${sentence}`;
  }
  if (
    m.kind === 'runtime_notice' ||
    m.kind === 'gate_notice' ||
    m.kind === 'error_notice' ||
    m.kind === 'checkpoint_notice'
  )
    return `> ${(m.content ?? '').replace(/\n/g, '\n> ')}`;
  if (m.kind === 'turn_aborted') return `> *${cancelledSentence(lang)}*`;
  // A cut paste is exported whole: the file is for people, not for the model's window.
  if (m.role === 'user')
    return [`## User`, m.fullOutput ?? m.content ?? '', ...imagesOf(m, image)].filter((x) => x !== '').join('\n\n');
  if (m.role === 'assistant') {
    const calls = (m.tool_calls ?? []).map(
      (c) => `**Tool call** \`${c.function.name}\`\n\n${fence(c.function.arguments)}`,
    );
    return [`## Assistant`, m.content ?? '', ...calls].filter((s) => s !== '').join('\n\n');
  }
  if (m.role === 'tool')
    return `**Tool result** (${m.tool_call_id ?? ''})\n\n${fence(m.fullOutput ?? m.content ?? '')}`;
  return null;
}

/** Markdown for people (what the user saw, full tool outputs), JSON for machines (everything). */
export function exportSession(
  session: SessionSummary,
  messages: StoredMessage[],
  compactions: CompactionRecord[],
  format: 'markdown' | 'json',
  /**
   * lang: the notices' language; 'all' branches: JSON keeps each message's parentId, Markdown
   * marks where a branch starts; image: an attached image's bytes (Markdown embeds them).
   */
  opts: { lang?: ExportLanguage; branches?: 'active' | 'all'; image?: ImageBytes } = {},
): { filename: string; mime: string; content: string } {
  const { lang = 'en', branches = 'active', image } = opts;
  const base = slug(session.title || 'session') + (branches === 'all' ? '-all-branches' : '');
  if (format === 'json') {
    const content = JSON.stringify({ version: 1, branches, session, messages, compactions }, null, 2);
    return { filename: `${base}.json`, mime: 'application/json', content };
  }
  const parts = [
    `# ${session.title || 'Untitled session'}`,
    `_Exported ${new Date().toISOString()} · ${messages.length} messages_`,
  ];
  // Each compaction once, where it happened (after the last message it saw).
  const dividers = [...compactions].sort((a, b) => a.afterSeq - b.afterSeq);
  let d = 0;
  let previous: string | null = null;
  for (const m of messages) {
    while (d < dividers.length && dividers[d]!.afterSeq < m.seq)
      parts.push(`---\n\n> ${dividerSentence(dividers[d++]!, lang)}`);
    // With every branch, a message that does not follow the one before starts another branch.
    if (branches === 'all' && previous !== null && m.parentId !== previous && m.visibility.user)
      parts.push(`---\n\n_${anotherVersionSentence(lang)}_`);
    const md = markdownOf(m, lang, image);
    if (md !== null) parts.push(md);
    previous = m.id;
  }
  while (d < dividers.length) parts.push(`---\n\n> ${dividerSentence(dividers[d++]!, lang)}`);
  return { filename: `${base}.md`, mime: 'text/markdown', content: parts.join('\n\n') + '\n' };
}
