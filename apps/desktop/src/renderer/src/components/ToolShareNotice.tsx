import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { McpServerInfo } from '@threadline/protocol';
import { useAppStore } from '../store';
import { mcpRoutes } from '../store/routes';
import { errorMessage } from '@threadline/protocol';

/**
 * Tool definitions are sent with every request: when MCP servers make them take more than the
 * set share of the window, say so and let the user leave servers out of this session.
 */
export function ToolShareNotice({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const usage = useAppStore((s) => s.bySession[sessionId]?.usage);
  const loadContext = useAppStore((s) => s.loadContext);
  const share = useAppStore((s) => s.settings?.mcp?.toolShareWarning ?? 0.25);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [servers, setServers] = useState<McpServerInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (!usage?.toolsOverShare || dismissed === sessionId) return null;
  const percent = Math.round(((usage.breakdown.tools * usage.calibration) / Math.max(1, usage.window)) * 100);

  const load = async () => {
    try {
      setServers((await mcpRoutes.list({ sessionId })).servers.filter((s) => s.enabled));
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const toggle = async (s: McpServerInfo, use: boolean) => {
    setError(null);
    try {
      await mcpRoutes.disableForSession({ sessionId, ids: [s.id], disabled: !use });
      await load();
      // The meter and this notice follow the new tool set.
      await loadContext(sessionId);
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <div className="tool-share" role="status" data-testid="tool-share-notice">
      <div className="tool-share-text">
        {t('mcp.share.text', {
          percent,
          limit: Math.round(share * 100),
          count: usage.toolServers ?? 0,
        })}
      </div>
      <div className="tool-share-actions">
        {servers === null ? (
          <button type="button" className="btn btn-small" onClick={() => void load()} data-testid="tool-share-choose">
            {t('mcp.share.choose')}
          </button>
        ) : (
          <ul className="tool-share-list" aria-label={t('mcp.share.listLabel')}>
            {servers.map((s) => (
              <li key={s.id}>
                <label className="mcp-check">
                  <input
                    type="checkbox"
                    checked={!s.sessionDisabled}
                    onChange={(e) => void toggle(s, e.target.checked)}
                    data-testid="tool-share-server"
                  />
                  {t('mcp.share.use', { name: s.name, count: s.tools.length })}
                </label>
              </li>
            ))}
          </ul>
        )}
        <button type="button" className="link-btn" onClick={() => setDismissed(sessionId)}>
          {t('common.dismiss')}
        </button>
      </div>
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}
