import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { HeldFile, HeldKeepFailure } from '@threadline/protocol';
import { useAppStore } from '../store';
import { IconShield } from './Icons';

/** How many rows show before "Show all". */
const ROWS = 6;

/** A row of the card: one held file, or several of one folder held for the same reason. */
interface Row {
  key: string;
  path: string;
  reason: HeldFile['reason'];
  files: HeldFile[];
}

/** Files of one folder held for the same reason, three or more (an install's programs), are one row. */
function rowsOf(files: readonly HeldFile[]): Row[] {
  const groups = new Map<string, HeldFile[]>();
  for (const f of files) {
    const dir = f.path.includes('/') ? f.path.slice(0, f.path.lastIndexOf('/')) : '';
    const key = `${f.reason}\u0000${dir}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const rows: Row[] = [];
  for (const [key, group] of groups) {
    const dir = key.slice(key.indexOf('\u0000') + 1);
    if (group.length >= 3 && dir !== '') rows.push({ key, path: `${dir}/`, reason: group[0]!.reason, files: group });
    else for (const f of group) rows.push({ key: f.id, path: f.path, reason: f.reason, files: [f] });
  }
  return rows;
}

/**
 * The one card of a session's held files (issue 34): what its sandboxed commands left that makes
 * code run later, out of the folder until the user keeps it. Each row says why; Keep puts them
 * back, Discard deletes them.
 */
export function HeldFilesCard({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const files = useAppStore((s) => s.bySession[sessionId]?.held);
  const busy = useAppStore((s) => Boolean(s.heldBusy[sessionId]));
  const resolve = useAppStore((s) => s.resolveHeld);
  const [all, setAll] = useState(false);
  const [failed, setFailed] = useState<HeldKeepFailure[]>([]);
  if (!files || files.length === 0) return null;
  const rows = rowsOf(files);
  const shown = all ? rows : rows.slice(0, ROWS);
  const decide = async (decision: 'keep' | 'discard') => setFailed(await resolve(sessionId, decision));
  const why = (kind: HeldKeepFailure['why']) => failed.filter((f) => f.why === kind).map((f) => f.path);
  return (
    <section className="held-card" aria-labelledby={`held-title-${sessionId}`} data-testid="held-card">
      <div className="held-head">
        <IconShield />
        <h2 className="held-title" id={`held-title-${sessionId}`}>
          {t('held.title', { count: files.length })}
        </h2>
      </div>
      <p className="held-body">{t('held.body')}</p>
      <ul className="held-list">
        {shown.map((r) => {
          const f = r.files[0]!;
          const detail =
            r.files.length > 1
              ? t('held.files', { count: r.files.length })
              : f.kind === 'link'
                ? t('held.link', { target: f.target ?? '?' })
                : f.kind === 'dir'
                  ? t('held.entries', { count: f.entries ?? 0 })
                  : f.kind === 'file'
                    ? null
                    : t(`held.kind.${f.kind}`);
          return (
            <li key={r.key} className="held-row" data-testid="held-file" data-reason={r.reason}>
              <code className="held-path">{r.path}</code>
              {detail && <span className="held-detail">{detail}</span>}
              <span className="held-why">{t(`tool.accessReason.${r.reason}`)}</span>
            </li>
          );
        })}
      </ul>
      {rows.length > ROWS && (
        <button type="button" className="chip-toggle" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? t('held.less') : t('held.more', { count: rows.length })}
        </button>
      )}
      {(['occupied', 'folder_gone', 'not_keepable'] as const).map(
        (kind) =>
          why(kind).length > 0 && (
            <p key={kind} className="held-failed" role="alert" data-testid="held-failed">
              {t(`held.failed.${kind}`, { files: why(kind).join(', ') })}
            </p>
          ),
      )}
      <div className="held-actions">
        <button
          type="button"
          className="btn btn-small"
          disabled={busy}
          onClick={() => void decide('keep')}
          data-testid="held-keep"
        >
          {t('held.keep')}
        </button>
        <button
          type="button"
          className="btn btn-small btn-danger"
          disabled={busy}
          onClick={() => void decide('discard')}
          data-testid="held-discard"
        >
          {t('held.discard')}
        </button>
      </div>
    </section>
  );
}
