import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RuleMatch, RuleOptions, RuleScopeKind } from '@threadline/protocol';
import { useAppStore } from '../store';
import { matchText, scopeText } from '../lib/ruleText';

const SCOPES: RuleScopeKind[] = ['session', 'folder', 'everywhere'];
/** A typed path scope with one of these is a glob; otherwise a folder. */
const GLOB = /[*?[\]{}]/;

/** A path part as the user typed it (a folder or a glob), or null when it is not an absolute path. */
function typedPath(base: Extract<RuleMatch, { kind: 'path' }>, text: string): RuleMatch | null {
  const p = text.trim();
  if (!(p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p))) return null;
  return { ...base, scope: GLOB.test(p) ? { kind: 'glob', pattern: p } : { kind: 'folder', path: p } };
}

/**
 * "Allow … / Deny … in this session, in this folder, everywhere" on an approval card: for each part
 * of the call (each command of a compound line) the match it saves, chosen among the ones the
 * runtime built from the call (narrowest first) or, for a path, typed; then where it holds. Every
 * choice says what the rule will match. No allow where a floor (protected path, credential place,
 * leaving the sandbox) or an ask rule stands: the card says why.
 */
export function RememberRule({
  sessionId,
  toolCallId,
  options,
}: {
  sessionId: string;
  toolCallId: string;
  options: RuleOptions;
}) {
  const { t } = useTranslation();
  const approve = useAppStore((s) => s.approve);
  const id = useId();
  const [chosen, setChosen] = useState<number[]>(() => options.parts.map((p) => p.preferred));
  const [typed, setTyped] = useState<(string | null)[]>(() => options.parts.map(() => null));
  const [scope, setScope] = useState<RuleScopeKind>('session');
  const [reason, setReason] = useState('');
  const matches = options.parts.map((part, i) => {
    const picked = part.options[chosen[i] ?? part.preferred] ?? part.options[0]!;
    const text = typed[i];
    return text !== null && picked.kind === 'path' ? typedPath(picked, text) : picked;
  });
  const complete = matches.every((m) => m !== null) ? (matches as RuleMatch[]) : null;
  const ready = complete !== null;
  const remember = (decision: 'approve' | 'deny') => {
    if (!complete) return;
    void approve(sessionId, toolCallId, decision, {
      remember: { scope, matches: complete },
      ...(decision === 'deny' && reason.trim() ? { reason: reason.trim() } : {}),
    });
  };
  if (options.parts.length === 0)
    return options.blocked ? (
      <p className="tool-remember-blocked muted" data-testid="remember-blocked">
        {t(`rules.blocked.${options.blocked}`)}
      </p>
    ) : null;
  return (
    <fieldset className="tool-remember" data-testid="remember-rule">
      <legend>{t('rules.card.legend')}</legend>
      {options.parts.map((part, i) => {
        const picked = part.options[chosen[i] ?? part.preferred]!;
        return (
          <div className="tool-remember-part" key={i}>
            <label htmlFor={`${id}-part-${i}`}>{t('rules.card.match')}</label>
            <select
              id={`${id}-part-${i}`}
              className="input"
              value={chosen[i]}
              onChange={(e) => {
                const next = [...chosen];
                next[i] = Number(e.target.value);
                setChosen(next);
                const reset = [...typed];
                reset[i] = null;
                setTyped(reset);
              }}
              data-testid="remember-match"
            >
              {part.options.map((o, k) => (
                <option key={k} value={k}>
                  {matchText(t, o)}
                </option>
              ))}
            </select>
            {picked.kind === 'path' &&
              (typed[i] === null ? (
                <button
                  type="button"
                  className="link-btn"
                  onClick={() => {
                    const next = [...typed];
                    next[i] = picked.scope.kind === 'folder' ? picked.scope.path : '';
                    setTyped(next);
                  }}
                  data-testid="remember-edit-path"
                >
                  {t('rules.card.editPath')}
                </button>
              ) : (
                <input
                  className="input"
                  aria-label={t('rules.card.pathLabel')}
                  placeholder={t('rules.card.pathPlaceholder')}
                  value={typed[i] ?? ''}
                  aria-invalid={matches[i] === null}
                  onChange={(e) => {
                    const next = [...typed];
                    next[i] = e.target.value;
                    setTyped(next);
                  }}
                  data-testid="remember-path"
                />
              ))}
          </div>
        );
      })}
      <div className="tool-remember-scope" role="radiogroup" aria-label={t('rules.card.scope')}>
        {SCOPES.map((k) => (
          <label key={k} className="radio">
            <input
              type="radio"
              name={`${id}-scope`}
              value={k}
              checked={scope === k}
              onChange={() => setScope(k)}
              data-testid={`remember-scope-${k}`}
            />
            {k === 'folder' ? t('rules.card.scopeFolder', { folder: options.folder }) : t(`rules.card.scope_${k}`)}
          </label>
        ))}
      </div>
      {complete && (
        <p className="tool-remember-preview" data-testid="remember-preview">
          {t('rules.card.preview', {
            match: complete.map((m) => matchText(t, m)).join('; '),
            scope: scopeText(
              t,
              scope === 'folder'
                ? { kind: 'folder', folder: options.folder }
                : scope === 'session'
                  ? { kind: 'session', sessionId }
                  : { kind: 'everywhere' },
            ),
          })}
        </p>
      )}
      {options.blocked && (
        <p className="tool-remember-blocked muted" data-testid="remember-blocked">
          {t(`rules.blocked.${options.blocked}`)}
        </p>
      )}
      <div className="tool-remember-actions">
        {!options.blocked && (
          <button
            type="button"
            className="btn"
            disabled={!ready}
            onClick={() => remember('approve')}
            data-testid="remember-allow"
          >
            {t(`rules.card.allow_${scope}`)}
          </button>
        )}
        <input
          className="input tool-remember-reason"
          value={reason}
          maxLength={2000}
          placeholder={t('rules.card.reasonPlaceholder')}
          aria-label={t('rules.card.reasonLabel')}
          onChange={(e) => setReason(e.target.value)}
          data-testid="remember-reason"
        />
        <button
          type="button"
          className="btn"
          disabled={!ready}
          onClick={() => remember('deny')}
          data-testid="remember-deny"
        >
          {t(`rules.card.deny_${scope}`)}
        </button>
      </div>
    </fieldset>
  );
}
