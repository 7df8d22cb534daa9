import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatBytes } from '../lib/sizes';
import type { McpServerInfo } from '@threadline/protocol';
import { useAppStore } from '../store';
import { mcpRoutes } from '../store/routes';
import { reveal } from '../lib/reveal';
import { errorMessage } from '@threadline/protocol';

/**
 * The tools a server lists, as the model would read them: description and input schema, per
 * tool, expandable. New tools and changed descriptions are marked and held back from the model
 * until the user approves them here (mcp.tools.approve pins them as they are).
 */
export function McpToolReview({ server, onChanged }: { server: McpServerInfo; onChanged: (msg?: string) => void }) {
  const { t, i18n } = useTranslation();
  const review = server.review ?? [];
  const pending = server.pendingReview ?? 0;
  const [busy, setBusy] = useState(false);
  if (review.length === 0) return null;
  const approve = async () => {
    setBusy(true);
    try {
      await mcpRoutes.approveTools({ id: server.id });
      onChanged();
    } catch (err) {
      onChanged(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="mcp-review" data-testid="mcp-review">
      {pending > 0 && (
        <div className="mcp-review-pending" role="status" data-testid="mcp-review-pending">
          <span>{t('mcp.review.pending', { count: pending })}</span>
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={busy}
            onClick={() => void approve()}
            data-testid="mcp-review-approve"
          >
            {t('mcp.review.approve')}
          </button>
        </div>
      )}
      <details className="mcp-review-list" open={pending > 0}>
        <summary data-testid="mcp-review-toggle">{t('mcp.review.tools', { count: review.length })}</summary>
        <ul>
          {review.map((tool) => {
            const description = reveal(tool.description);
            return (
              <li key={tool.name} className="mcp-tool" data-testid="mcp-tool" data-state={tool.state}>
                <div className="mcp-tool-head">
                  <code>{tool.name}</code>
                  {tool.state !== 'pinned' && (
                    <span className="badge badge-waiting" data-testid="mcp-tool-state">
                      {t(`mcp.review.state.${tool.state}`)}
                    </span>
                  )}
                </div>
                <pre className="mcp-tool-desc" data-testid="mcp-tool-desc">
                  {description.text || t('mcp.review.noDescription')}
                </pre>
                {tool.pinnedDescription !== undefined && (
                  <div className="mcp-tool-was">
                    <span className="muted">{t('mcp.review.was')}</span>
                    <pre className="mcp-tool-desc">{reveal(tool.pinnedDescription).text}</pre>
                  </div>
                )}
                <details className="mcp-tool-schema">
                  <summary>
                    {t('mcp.review.schema', {
                      size: formatBytes(new TextEncoder().encode(tool.inputSchema).length, i18n.language),
                    })}
                  </summary>
                  <pre className="mcp-tool-desc">{reveal(tool.inputSchema).text}</pre>
                </details>
              </li>
            );
          })}
        </ul>
      </details>
    </div>
  );
}

/**
 * In the chat: tools of this session's MCP servers wait for the user's review (new, or their
 * description changed). The model does not see them; the button leads to Settings.
 */
export function McpReviewNotice({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const openSettings = useAppStore((s) => s.openSettings);
  const [pending, setPending] = useState<{ name: string; count: number }[]>([]);
  // Servers start with a turn: look again whenever one ends.
  useEffect(() => {
    if (busy) return;
    let live = true;
    mcpRoutes
      .list({ sessionId })
      .then((r) => {
        if (!live) return;
        setPending(
          r.servers
            .filter((s) => s.enabled && !s.sessionDisabled && (s.pendingReview ?? 0) > 0)
            .map((s) => ({ name: s.name, count: s.pendingReview ?? 0 })),
        );
      })
      .catch(() => {
        if (live) setPending([]);
      });
    return () => {
      live = false;
    };
  }, [sessionId, busy]);
  if (pending.length === 0) return null;
  return (
    <div className="tool-share mcp-review-notice" role="status" data-testid="mcp-review-notice">
      <div className="tool-share-text">
        {pending.map((p) => t('mcp.review.notice', { name: p.name, count: p.count })).join(' ')}
      </div>
      <div className="tool-share-actions">
        <button
          type="button"
          className="btn btn-small"
          onClick={() => openSettings('tools')}
          data-testid="mcp-review-open"
        >
          {t('mcp.review.open')}
        </button>
      </div>
    </div>
  );
}
