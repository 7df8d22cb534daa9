import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { McpServerInfo, McpServerUpsert } from '@threadline/protocol';
import { call } from '../transport';
import { Segmented } from './SettingsControls';

type Approve = 'ask' | 'all' | 'some';

/** Example values in the fields: code, the same in every language. */
const EXAMPLES = {
  name: 'filesystem', // i18n-ignore
  command: 'npx', // i18n-ignore
  args: '-y\n@modelcontextprotocol/server-filesystem\n/path/to/folder', // i18n-ignore
  url: 'https://example.com/mcp', // i18n-ignore
  env: 'API_TOKEN=…', // i18n-ignore
  cwd: '~/mcp/filesystem', // i18n-ignore
  envAllow: 'GOPATH\nJAVA_HOME', // i18n-ignore
  header: 'Authorization: Bearer …', // i18n-ignore
};

/** `KEY=value` (env) or `Name: value` (headers) lines → a map; a bad line is reported by number. */
export function parsePairs(text: string, sep: '=' | ':'): { map: Record<string, string>; bad: number | null } {
  const map: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const at = line.indexOf(sep);
    if (at <= 0) return { map, bad: i + 1 };
    map[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { map, bad: null };
}

/** Add or edit one MCP server. Stored secrets are never shown: their names stay unless removed. */
export function McpServerForm({ server, onDone }: { server?: McpServerInfo; onDone: () => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState(server?.name ?? '');
  const [transport, setTransport] = useState<'stdio' | 'http'>(server?.transport ?? 'stdio');
  const [command, setCommand] = useState(server?.command ?? '');
  const [args, setArgs] = useState((server?.args ?? []).join('\n'));
  const [url, setUrl] = useState(server?.url ?? '');
  const [kept, setKept] = useState<string[]>(
    (server?.transport === 'http' ? server.headers : server?.env)?.map((s) => s.name) ?? [],
  );
  const [secrets, setSecrets] = useState('');
  const [cwd, setCwd] = useState(server?.cwd ?? '');
  const [envAllow, setEnvAllow] = useState((server?.envAllow ?? []).join('\n'));
  const [startup, setStartup] = useState<'lazy' | 'launch'>(server?.startup ?? 'lazy');
  const auto = server?.autoApprove ?? false;
  const [approve, setApprove] = useState<Approve>(auto === true ? 'all' : Array.isArray(auto) ? 'some' : 'ask');
  const [autoTools, setAutoTools] = useState<string[]>(Array.isArray(auto) ? auto : []);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const sep = transport === 'stdio' ? '=' : ':';
  const idp = server?.id ?? 'new';

  const draft = (): McpServerUpsert | null => {
    const pairs = parsePairs(secrets, sep);
    if (pairs.bad !== null) {
      setError(t(transport === 'stdio' ? 'mcp.form.badEnv' : 'mcp.form.badHeader', { line: pairs.bad }));
      return null;
    }
    // null keeps a stored value the user did not retype (the form never sees it).
    const map: Record<string, string | null> = Object.fromEntries(kept.map((k) => [k, null]));
    Object.assign(map, pairs.map);
    const common = {
      id: server?.id,
      name: name.trim(),
      startup,
      autoApprove: approve === 'all' ? true : approve === 'some' ? autoTools : false,
    };
    return transport === 'stdio'
      ? {
          ...common,
          transport,
          command: command.trim(),
          args: args.split('\n').filter((a) => a.trim() !== ''),
          env: map,
          cwd: cwd.trim() === '' ? null : cwd.trim(),
          envAllow: envAllow
            .split(/[\s,]+/)
            .map((n) => n.trim())
            .filter((n) => n !== ''),
        }
      : { ...common, transport, url: url.trim(), headers: map };
  };

  const save = async () => {
    setError(null);
    const d = draft();
    if (!d) return;
    setSaving(true);
    try {
      await call('mcp.servers.upsert', d);
      onDone();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      className="mcp-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      data-testid="mcp-form"
    >
      <div className="form-grid">
        <label className="field">
          <span className="field-label">{t('mcp.form.name')}</span>
          <input
            className="input"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder={EXAMPLES.name}
            data-testid="mcp-name"
            autoFocus
          />
        </label>
        <div className="field">
          <span className="field-label">{t('mcp.form.transport')}</span>
          <Segmented
            label={t('mcp.form.transport')}
            value={transport}
            options={[
              { value: 'stdio', label: t('mcp.form.stdio') },
              { value: 'http', label: t('mcp.form.http') },
            ]}
            onChange={(v) => {
              setTransport(v);
              setKept([]);
            }}
            testId="mcp-transport"
          />
        </div>
        {transport === 'stdio' ? (
          <>
            <label className="field field-wide">
              <span className="field-label">{t('mcp.form.command')}</span>
              <input
                className="input mono"
                value={command}
                onChange={(e) => setCommand(e.target.value)}
                placeholder={EXAMPLES.command}
                data-testid="mcp-command"
              />
            </label>
            <label className="field field-wide">
              <span className="field-label">{t('mcp.form.args')}</span>
              <textarea
                className="input mono"
                rows={3}
                value={args}
                onChange={(e) => setArgs(e.target.value)}
                placeholder={EXAMPLES.args}
                data-testid="mcp-args"
              />
            </label>
            <label className="field field-wide">
              <span className="field-label">{t('mcp.form.cwd')}</span>
              <input
                className="input mono"
                value={cwd}
                onChange={(e) => setCwd(e.target.value)}
                placeholder={EXAMPLES.cwd}
                data-testid="mcp-cwd"
              />
              <span className="setting-help">{t('mcp.form.cwdHelp')}</span>
            </label>
            <label className="field field-wide">
              <span className="field-label">{t('mcp.form.envAllow')}</span>
              <textarea
                className="input mono"
                rows={2}
                value={envAllow}
                onChange={(e) => setEnvAllow(e.target.value)}
                placeholder={EXAMPLES.envAllow}
                data-testid="mcp-env-allow"
              />
              <span className="setting-help">{t('mcp.form.envAllowHelp')}</span>
            </label>
          </>
        ) : (
          <label className="field field-wide">
            <span className="field-label">{t('mcp.form.url')}</span>
            <input
              className="input mono"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder={EXAMPLES.url}
              data-testid="mcp-url"
            />
          </label>
        )}
        <div className="field field-wide">
          <span className="field-label" id={`mcp-secrets-${idp}`}>
            {t(transport === 'stdio' ? 'mcp.form.env' : 'mcp.form.headers')}
          </span>
          {kept.length > 0 && (
            <ul className="mcp-kept" aria-label={t('mcp.form.storedSecrets')}>
              {kept.map((k) => (
                <li key={k} className="mcp-chip">
                  <code>{k}</code>
                  <span className="muted">{t('mcp.form.set')}</span>
                  <button
                    type="button"
                    className="link-btn"
                    aria-label={t('mcp.form.removeSecret', { name: k })}
                    onClick={() => setKept(kept.filter((x) => x !== k))}
                  >
                    {t('mcp.form.remove')}
                  </button>
                </li>
              ))}
            </ul>
          )}
          <textarea
            className="input mono"
            rows={2}
            value={secrets}
            onChange={(e) => setSecrets(e.target.value)}
            aria-labelledby={`mcp-secrets-${idp}`}
            placeholder={transport === 'stdio' ? EXAMPLES.env : EXAMPLES.header}
            data-testid="mcp-secrets"
          />
          <span className="setting-help">{t('mcp.form.secretsHelp')}</span>
        </div>
        <div className="field">
          <span className="field-label">{t('mcp.form.startup')}</span>
          <Segmented
            label={t('mcp.form.startup')}
            value={startup}
            options={[
              { value: 'lazy', label: t('mcp.form.lazy') },
              { value: 'launch', label: t('mcp.form.launch') },
            ]}
            onChange={setStartup}
          />
        </div>
        <div className="field">
          <span className="field-label">{t('mcp.form.approval')}</span>
          <Segmented
            label={t('mcp.form.approval')}
            value={approve}
            options={[
              { value: 'ask', label: t('mcp.form.approveAsk') },
              { value: 'some', label: t('mcp.form.approveSome') },
              { value: 'all', label: t('mcp.form.approveAll') },
            ]}
            onChange={setApprove}
            testId="mcp-approval"
          />
        </div>
        {approve === 'some' && (
          <fieldset className="field field-wide mcp-tools-pick">
            <legend className="field-label">{t('mcp.form.autoTools')}</legend>
            {(server?.tools ?? []).length === 0 && <span className="setting-help">{t('mcp.form.noToolsYet')}</span>}
            {(server?.tools ?? []).map((tool) => (
              <label key={tool} className="mcp-check">
                <input
                  type="checkbox"
                  checked={autoTools.includes(tool)}
                  onChange={(e) =>
                    setAutoTools(e.target.checked ? [...autoTools, tool] : autoTools.filter((x) => x !== tool))
                  }
                />
                <code>{tool}</code>
              </label>
            ))}
          </fieldset>
        )}
      </div>
      {error && (
        <div className="form-error" role="alert" data-testid="mcp-form-error">
          {error}
        </div>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onDone}>
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn btn-primary" disabled={saving} data-testid="mcp-save">
          {t('mcp.form.save')}
        </button>
      </div>
    </form>
  );
}
