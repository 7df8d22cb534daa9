import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useForm, type FieldError, type Resolver } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import * as z from 'zod';
import { McpServerUpsertSchema, type McpServerInfo, type McpServerUpsert } from '@threadline/protocol';
import { mcpRoutes } from '../store/routes';
import { callErrorText, fieldErrorText, setServerIssues, type IssueKeys } from '../lib/formErrors';
import { Field, FormBanner, type Banner } from './form/Field';
import { Segmented } from './SettingsControls';

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

/** The form's fields as typed: lines of text, the stored secrets' names, the approval choice. */
const McpFormSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  command: z.string(),
  args: z.string(),
  url: z.string(),
  /** New secrets, `KEY=value` (env) or `Name: value` (headers) lines. */
  secrets: z.string(),
  /** Names of the stored secrets that stay (their values are never shown). */
  kept: z.array(z.string()),
  cwd: z.string(),
  envAllow: z.string(),
  startup: z.enum(['lazy', 'launch']),
  approve: z.enum(['ask', 'all', 'some']),
  autoTools: z.array(z.string()),
});
type McpFormValues = z.infer<typeof McpFormSchema>;

/** The form as the server it describes, checked by the protocol's own schema (`McpServerUpsertSchema`). */
const McpFormToUpsert = (id: string | undefined) =>
  McpFormSchema.transform((v): McpServerUpsert => {
    // A bad line is refused by the resolver below; here the good ones are kept.
    const pairs = parsePairs(v.secrets, v.transport === 'stdio' ? '=' : ':');
    // null keeps a stored value the user did not retype (the form never sees it).
    const map: Record<string, string | null> = Object.fromEntries(v.kept.map((k) => [k, null]));
    Object.assign(map, pairs.map);
    const common = {
      id,
      name: v.name,
      startup: v.startup,
      autoApprove: v.approve === 'all' ? true : v.approve === 'some' ? v.autoTools : false,
    };
    return v.transport === 'stdio'
      ? {
          ...common,
          transport: 'stdio',
          command: v.command,
          args: v.args.split('\n').filter((a) => a.trim() !== ''),
          env: map,
          cwd: v.cwd.trim() === '' ? null : v.cwd.trim(),
          envAllow: v.envAllow
            .split(/[\s,]+/)
            .map((n) => n.trim())
            .filter((n) => n !== ''),
        }
      : { ...common, transport: 'http', url: v.url.trim(), headers: map };
  }).pipe(McpServerUpsertSchema);

/**
 * The protocol's check, and the secrets' lines beside it (a zod pipe stops at its first failing
 * stage; this way every refusal shows at once). A bad line's number travels as its message.
 */
function mcpResolver(id: string | undefined): Resolver<McpFormValues, unknown, McpServerUpsert> {
  const upsert = zodResolver(McpFormToUpsert(id));
  return async (values, context, options) => {
    const result = await upsert(values, context, options);
    const bad = parsePairs(values.secrets, values.transport === 'stdio' ? '=' : ':').bad;
    if (bad === null) return result;
    return { values: {}, errors: { ...result.errors, secrets: { type: 'custom', message: String(bad) } } };
  };
}

const FIELDS = ['name', 'command', 'args', 'url', 'secrets', 'cwd', 'envAllow'] as const;

/** This form's sentences for what the schema refuses (the rest: `form.errors.<code>`). */
const ISSUE_KEYS: IssueKeys = {
  name: { too_small: 'mcp.form.errors.name', invalid_format: 'mcp.form.errors.nameChars' },
  command: { too_small: 'mcp.form.errors.command' },
  url: { '*': 'mcp.form.errors.url' },
  cwd: { '*': 'mcp.form.errors.cwd' },
  envAllow: { '*': 'mcp.form.errors.envAllow' },
};

/** Add or edit one MCP server. Stored secrets are never shown: their names stay unless removed. */
export function McpServerForm({ server, onDone }: { server?: McpServerInfo; onDone: () => void }) {
  const { t } = useTranslation();
  const auto = server?.autoApprove ?? false;
  const form = useForm<McpFormValues, unknown, McpServerUpsert>({
    resolver: mcpResolver(server?.id),
    defaultValues: {
      name: server?.name ?? '',
      transport: server?.transport ?? 'stdio',
      command: server?.command ?? '',
      args: (server?.args ?? []).join('\n'),
      url: server?.url ?? '',
      secrets: '',
      kept: (server?.transport === 'http' ? server.headers : server?.env)?.map((s) => s.name) ?? [],
      cwd: server?.cwd ?? '',
      envAllow: (server?.envAllow ?? []).join('\n'),
      startup: server?.startup ?? 'lazy',
      approve: auto === true ? 'all' : Array.isArray(auto) ? 'some' : 'ask',
      autoTools: Array.isArray(auto) ? auto : [],
    },
  });
  const { register, setValue, formState } = form;
  const { transport, kept, startup, approve, autoTools } = form.watch();
  /** The form's one banner (a refusal the fields cannot show). */
  const [banner, setBanner] = useState<Banner | null>(null);
  const [saving, setSaving] = useState(false);

  const errorOf = (field: (typeof FIELDS)[number]): string | null => {
    const error = formState.errors[field as keyof McpFormValues] as FieldError | undefined;
    // A secrets line that is not `KEY=value` / `Name: value`: the issue carries its number.
    if (field === 'secrets' && error?.type === 'custom')
      return t(transport === 'stdio' ? 'mcp.form.badEnv' : 'mcp.form.badHeader', { line: error.message });
    return fieldErrorText(t, ISSUE_KEYS, field, error);
  };

  const save = async (d: McpServerUpsert) => {
    setBanner(null);
    setSaving(true);
    try {
      await mcpRoutes.upsert(d);
      onDone();
    } catch (err) {
      if (!setServerIssues(err, FIELDS, form.setError))
        setBanner({ tone: 'error', text: callErrorText(t, err), testId: 'mcp-form-error' });
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="mcp-form" noValidate onSubmit={(e) => void form.handleSubmit(save)(e)} data-testid="mcp-form">
      <div className="form-grid">
        <Field label={t('mcp.form.name')} error={errorOf('name')} errorTestId="mcp-form-error-name">
          {(c) => (
            <input
              className="input"
              {...c}
              {...register('name')}
              placeholder={EXAMPLES.name}
              data-testid="mcp-name"
              autoFocus
            />
          )}
        </Field>
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
              setValue('transport', v);
              setValue('kept', []);
            }}
            testId="mcp-transport"
          />
        </div>
        {transport === 'stdio' ? (
          <>
            <Field wide label={t('mcp.form.command')} error={errorOf('command')} errorTestId="mcp-form-error-command">
              {(c) => (
                <input
                  className="input mono"
                  {...c}
                  {...register('command')}
                  placeholder={EXAMPLES.command}
                  data-testid="mcp-command"
                />
              )}
            </Field>
            <Field wide label={t('mcp.form.args')} error={errorOf('args')} errorTestId="mcp-form-error-args">
              {(c) => (
                <textarea
                  className="input mono"
                  rows={3}
                  {...c}
                  {...register('args')}
                  placeholder={EXAMPLES.args}
                  data-testid="mcp-args"
                />
              )}
            </Field>
            <Field
              wide
              label={t('mcp.form.cwd')}
              hint={t('mcp.form.cwdHelp')}
              error={errorOf('cwd')}
              errorTestId="mcp-form-error-cwd"
            >
              {(c) => (
                <input
                  className="input mono"
                  {...c}
                  {...register('cwd')}
                  placeholder={EXAMPLES.cwd}
                  data-testid="mcp-cwd"
                />
              )}
            </Field>
            <Field
              wide
              label={t('mcp.form.envAllow')}
              hint={t('mcp.form.envAllowHelp')}
              error={errorOf('envAllow')}
              errorTestId="mcp-form-error-envAllow"
            >
              {(c) => (
                <textarea
                  className="input mono"
                  rows={2}
                  {...c}
                  {...register('envAllow')}
                  placeholder={EXAMPLES.envAllow}
                  data-testid="mcp-env-allow"
                />
              )}
            </Field>
          </>
        ) : (
          <Field wide label={t('mcp.form.url')} error={errorOf('url')} errorTestId="mcp-form-error-url">
            {(c) => (
              <input
                className="input mono"
                {...c}
                {...register('url')}
                placeholder={EXAMPLES.url}
                data-testid="mcp-url"
              />
            )}
          </Field>
        )}
        <Field
          wide
          label={t(transport === 'stdio' ? 'mcp.form.env' : 'mcp.form.headers')}
          hint={t('mcp.form.secretsHelp')}
          error={errorOf('secrets')}
          errorTestId="mcp-form-error-secrets"
        >
          {(c) => (
            <>
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
                        onClick={() =>
                          setValue(
                            'kept',
                            kept.filter((x) => x !== k),
                          )
                        }
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
                {...c}
                {...register('secrets')}
                placeholder={transport === 'stdio' ? EXAMPLES.env : EXAMPLES.header}
                data-testid="mcp-secrets"
              />
            </>
          )}
        </Field>
        <div className="field">
          <span className="field-label">{t('mcp.form.startup')}</span>
          <Segmented
            label={t('mcp.form.startup')}
            value={startup}
            options={[
              { value: 'lazy', label: t('mcp.form.lazy') },
              { value: 'launch', label: t('mcp.form.launch') },
            ]}
            onChange={(v) => setValue('startup', v)}
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
            onChange={(v) => setValue('approve', v)}
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
                    setValue('autoTools', e.target.checked ? [...autoTools, tool] : autoTools.filter((x) => x !== tool))
                  }
                />
                <code>{tool}</code>
              </label>
            ))}
          </fieldset>
        )}
      </div>
      <FormBanner banner={banner} />
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
