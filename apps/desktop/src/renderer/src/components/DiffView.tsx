import { useTranslation } from 'react-i18next';
import type { ToolDiff } from '@threadline/protocol';

/** A ToolDiff from a result's meta (written by the agent); anything else is no diff. */
export function diffOf(meta: Record<string, unknown> | undefined | null): ToolDiff | null {
  const d = meta?.diff as Partial<ToolDiff> | undefined;
  if (!d || typeof d !== 'object' || typeof d.patch !== 'string' || typeof d.path !== 'string') return null;
  return {
    path: d.path,
    created: d.created === true,
    added: Number(d.added) || 0,
    removed: Number(d.removed) || 0,
    patch: d.patch,
    moreLines: Number(d.moreLines) || 0,
  };
}

function lineClass(l: string): string {
  if (l.startsWith('@@')) return 'diff-hunk';
  if (l.startsWith('+')) return 'diff-add';
  if (l.startsWith('-')) return 'diff-del';
  return 'diff-ctx';
}

/** A file change as added and removed lines (the `+`/`-` stay, for copying and screen readers). */
export function DiffView({ diff }: { diff: ToolDiff }) {
  const { t } = useTranslation();
  const lines = diff.patch === '' ? [] : diff.patch.split('\n');
  return (
    <div className="tool-diff" data-testid="tool-diff">
      <div className="tool-diff-head">
        <code className="tool-diff-path">{diff.path}</code>
        <span className="tool-diff-count diff-count-add" data-testid="diff-added">
          {t('tool.diff.added', { count: diff.added })}
        </span>
        <span className="tool-diff-count diff-count-del" data-testid="diff-removed">
          {t('tool.diff.removed', { count: diff.removed })}
        </span>
      </div>
      <pre className="tool-diff-body">
        {lines.map((l, i) => (
          <div key={i} className={`diff-line ${lineClass(l)}`}>
            {l === '' ? ' ' : l}
          </div>
        ))}
      </pre>
      {diff.moreLines > 0 && (
        <div className="tool-diff-more" data-testid="diff-more">
          {t('tool.diff.more', { count: diff.moreLines })}
        </div>
      )}
    </div>
  );
}
