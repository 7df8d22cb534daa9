import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { McpServerInfo } from '@threadline/protocol';
import { mcpRoutes } from '../store/routes';
import { McpServerForm } from './McpServerForm';
import { McpToolReview } from './McpToolReview';
import { Toggle } from './SettingsControls';
import { errorMessage } from '@threadline/protocol';
import { Field, FormBanner } from './form/Field';

/** Rows follow the servers' live state: often while one starts, calmly otherwise (a crash, a restart). */
const POLL_MS = 1000;
const IDLE_POLL_MS = 4000;
/** JSON, the same in every language. */
const IMPORT_EXAMPLE = '{\n  "mcpServers": {\n    "filesystem": { "command": "npx", "args": ["-y", "…"] }\n  }\n}'; // i18n-ignore

function errorText(err: unknown): string {
  return errorMessage(err);
}

export function McpStatus({ server }: { server: McpServerInfo }) {
  const { t } = useTranslation();
  const cls = { connected: 'ok', error: 'error', starting: 'running', stopped: 'aborted', disabled: 'aborted' }[
    server.status
  ];
  const label =
    server.status === 'connected'
      ? t('mcp.status.connected', { count: server.tools.length })
      : server.status === 'starting' && server.stage
        ? t(`mcp.stage.${server.stage}`)
        : t(`mcp.status.${server.status}`);
  return (
    <span
      className={`badge badge-${cls}`}
      data-testid="mcp-status"
      data-status={server.status}
      data-stage={server.status === 'starting' ? server.stage : undefined}
    >
      {label}
    </span>
  );
}

function ServerRow({
  server,
  onEdit,
  onChanged,
}: {
  server: McpServerInfo;
  onEdit: () => void;
  onChanged: (msg?: string) => void;
}) {
  const { t } = useTranslation();
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await fn();
      onChanged();
    } catch (err) {
      onChanged(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const where = server.transport === 'stdio' ? [server.command, ...(server.args ?? [])].join(' ') : server.url;
  const setEnabled = (enabled: boolean) =>
    server.transport === 'stdio'
      ? mcpRoutes.upsert({
          id: server.id,
          name: server.name,
          transport: 'stdio',
          command: server.command ?? '',
          args: server.args,
          enabled,
        })
      : mcpRoutes.upsert({
          id: server.id,
          name: server.name,
          transport: 'http',
          url: server.url ?? '',
          enabled,
        });
  return (
    <li className="mcp-item" data-testid="mcp-item" data-name={server.name}>
      <div className="mcp-row">
        <div className="provider-info">
          <div className="provider-name">
            {server.name}
            <McpStatus server={server} />
          </div>
          <div className="muted mono mcp-where" title={where ?? ''}>
            {where}
          </div>
          {server.runFolder && (
            <div className="muted mcp-where" data-testid="mcp-run-folder">
              {t(server.cwd ? 'mcp.runFolder' : 'mcp.runFolderNeutral', { folder: server.runFolder })}
            </div>
          )}
        </div>
        <div className="mcp-controls">
          <Toggle
            label={t('mcp.enabled', { name: server.name })}
            checked={server.enabled}
            onChange={(v) => void run(() => setEnabled(v))}
            testId="mcp-enabled"
          />
          <button
            type="button"
            className="btn btn-small"
            disabled={busy || !server.enabled}
            onClick={() => void run(() => mcpRoutes.restart({ id: server.id }))}
            data-testid="mcp-restart"
          >
            {server.status === 'stopped' ? t('mcp.start') : t('mcp.restart')}
          </button>
          <button type="button" className="btn btn-small" onClick={onEdit} data-testid="mcp-edit">
            {t('mcp.edit')}
          </button>
          {confirm ? (
            <span className="mcp-confirm" role="group" aria-label={t('mcp.removeConfirm', { name: server.name })}>
              <span>{t('mcp.removeConfirm', { name: server.name })}</span>
              <button
                type="button"
                className="btn btn-small btn-danger"
                autoFocus
                onClick={() => void run(() => mcpRoutes.remove({ id: server.id }))}
                data-testid="mcp-remove-yes"
              >
                {t('mcp.remove')}
              </button>
              <button type="button" className="btn btn-small" onClick={() => setConfirm(false)}>
                {t('common.cancel')}
              </button>
            </span>
          ) : (
            <button type="button" className="btn btn-small" onClick={() => setConfirm(true)} data-testid="mcp-remove">
              {t('mcp.remove')}
            </button>
          )}
        </div>
      </div>
      <McpToolReview server={server} onChanged={onChanged} />
      {server.status === 'error' && server.error && (
        <pre className="mcp-error" role="status" data-testid="mcp-error">
          {server.error}
        </pre>
      )}
    </li>
  );
}

function ImportPanel({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [json, setJson] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<{ added: number; skipped: { name: string; reason: string }[] } | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const submit = async () => {
    setError(null);
    setResult(null);
    try {
      const r = await mcpRoutes.import({ json });
      setResult({ added: r.servers.length, skipped: r.skipped });
      onDone();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <div className="mcp-import" data-testid="mcp-import">
      <Field label={t('mcp.import.label')}>
        {(c) => (
          <textarea
            className="input mono"
            rows={6}
            {...c}
            value={json}
            onChange={(e) => setJson(e.target.value)}
            placeholder={IMPORT_EXAMPLE}
            data-testid="mcp-import-json"
          />
        )}
      </Field>
      <div className="form-actions">
        <input
          ref={fileRef}
          type="file"
          accept=".json,application/json"
          hidden
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void f.text().then(setJson);
            e.target.value = '';
          }}
        />
        <button type="button" className="btn" onClick={() => fileRef.current?.click()}>
          {t('mcp.import.file')}
        </button>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-primary"
          disabled={json.trim() === ''}
          onClick={() => void submit()}
          data-testid="mcp-import-submit"
        >
          {t('mcp.import.submit')}
        </button>
      </div>
      <FormBanner banner={error ? { tone: 'error', text: error, testId: 'mcp-import-error' } : null} />
      {result && (
        <div role="status" data-testid="mcp-import-result">
          <div>{t('mcp.import.added', { count: result.added })}</div>
          {result.skipped.length > 0 && (
            <ul className="mcp-skipped">
              {result.skipped.map((s) => (
                <li key={s.name}>{t('mcp.import.skipped', { name: s.name, reason: s.reason })}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

/** Settings → Tools (MCP): servers with their live status, add/edit/enable/restart/remove, import. */
export function McpSettings() {
  const { t } = useTranslation();
  const [servers, setServers] = useState<McpServerInfo[] | null>(null);
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const [importing, setImporting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setServers((await mcpRoutes.list({})).servers);
    } catch (err) {
      setError(errorText(err));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const starting = servers?.some((s) => s.status === 'starting') ?? false;
  useEffect(() => {
    const timer = setInterval(() => void load(), starting ? POLL_MS : IDLE_POLL_MS);
    return () => clearInterval(timer);
  }, [starting, load]);

  const changed = (msg?: string) => {
    setError(msg ?? null);
    void load();
  };
  const current = servers?.find((s) => s.id === editing);

  return (
    <section className="settings-section" data-testid="mcp-settings">
      <p className="setting-help">{t('mcp.intro')}</p>
      {servers !== null && servers.length === 0 && editing === null && (
        <div className="muted mcp-empty">{t('mcp.empty')}</div>
      )}
      <ul className="provider-list">
        {(servers ?? []).map((s) =>
          editing === s.id ? (
            <li key={s.id} className="provider-edit">
              <McpServerForm server={current} onDone={() => (setEditing(null), void load())} />
            </li>
          ) : (
            <ServerRow key={s.id} server={s} onEdit={() => setEditing(s.id)} onChanged={changed} />
          ),
        )}
      </ul>
      <FormBanner banner={error ? { tone: 'error', text: error, testId: 'mcp-error-banner' } : null} />
      {editing === 'new' && (
        <div className="provider-edit">
          <McpServerForm onDone={() => (setEditing(null), void load())} />
        </div>
      )}
      {editing === null && (
        <div className="form-actions mcp-actions">
          <button type="button" className="btn" onClick={() => setEditing('new')} data-testid="mcp-add">
            {t('mcp.add')}
          </button>
          <button
            type="button"
            className="btn"
            aria-expanded={importing}
            onClick={() => setImporting(!importing)}
            data-testid="mcp-import-open"
          >
            {t('mcp.import.open')}
          </button>
        </div>
      )}
      {importing && editing === null && <ImportPanel onDone={() => void load()} />}
    </section>
  );
}
