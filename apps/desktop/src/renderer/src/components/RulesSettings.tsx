import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage, type Rule, type RuleDecision, type RuleMatch } from '@threadline/protocol';
import { ruleRoutes } from '../store/routes';
import { useAppStore } from '../store';
import i18n from '../i18n';
import { matchText, scopeText } from '../lib/ruleText';
import { FormBanner } from './form/Field';

const DECISIONS: RuleDecision[] = ['allow', 'ask', 'deny'];
const GLOB = /[*?[\]{}]/;

function when(ts: number): string {
  return new Date(ts).toLocaleString(i18n.language);
}

/** A rule's match as the edit form holds it: words (commands) or a path (file tools) as text. */
interface MatchDraft {
  words: string;
  more: boolean;
  sandbox: 'only' | 'also_outside';
  path: string;
}

function draftOf(m: RuleMatch): MatchDraft {
  const base: MatchDraft = { words: '', more: true, sandbox: 'only', path: '' };
  if (m.kind === 'command') return { ...base, words: m.words.join(' '), more: m.more, sandbox: m.sandbox };
  if (m.kind === 'path' && m.scope.kind === 'folder') return { ...base, path: m.scope.path };
  if (m.kind === 'path' && m.scope.kind === 'glob') return { ...base, path: m.scope.pattern };
  return base;
}

/** The edited match; a path rule keeps its kind (any, inside, outside) unless a path was typed. */
function matchOf(m: RuleMatch, d: MatchDraft): RuleMatch {
  if (m.kind === 'command')
    return { ...m, words: d.words.split(/\s+/).filter((w) => w !== ''), more: d.more, sandbox: d.sandbox };
  if (m.kind === 'path' && d.path.trim() !== '') {
    const p = d.path.trim();
    return { ...m, scope: GLOB.test(p) ? { kind: 'glob', pattern: p } : { kind: 'folder', path: p } };
  }
  return m;
}

function RuleEditor({ rule, onDone }: { rule: Rule; onDone: () => void }) {
  const { t } = useTranslation();
  const id = useId();
  const [decision, setDecision] = useState<RuleDecision>(rule.decision);
  const [reason, setReason] = useState(rule.reason ?? '');
  const [draft, setDraft] = useState<MatchDraft>(() => draftOf(rule.match));
  const [error, setError] = useState<string | null>(null);
  const m = rule.match;
  const pathEditable = m.kind === 'path' && (m.scope.kind === 'folder' || m.scope.kind === 'glob');
  const save = async () => {
    setError(null);
    try {
      await ruleRoutes.save({
        id: rule.id,
        decision,
        match: matchOf(m, draft),
        scope: rule.scope,
        reason: decision === 'deny' && reason.trim() ? reason.trim() : null,
      });
      onDone();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <form
      className="rule-edit"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      data-testid="rule-edit"
    >
      <label htmlFor={`${id}-decision`}>{t('rules.settings.decision')}</label>
      <select
        id={`${id}-decision`}
        className="input"
        value={decision}
        onChange={(e) => setDecision(e.target.value as RuleDecision)}
        data-testid="rule-edit-decision"
      >
        {DECISIONS.map((d) => (
          <option key={d} value={d}>
            {t(`rules.decision.${d}`)}
          </option>
        ))}
      </select>
      {m.kind === 'command' && (
        <>
          <label htmlFor={`${id}-words`}>{t('rules.settings.words')}</label>
          <input
            id={`${id}-words`}
            className="input"
            value={draft.words}
            onChange={(e) => setDraft({ ...draft, words: e.target.value })}
            data-testid="rule-edit-words"
          />
          <label className="check">
            <input
              type="checkbox"
              checked={draft.more}
              onChange={(e) => setDraft({ ...draft, more: e.target.checked })}
            />
            {t('rules.settings.more')}
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={draft.sandbox === 'only'}
              onChange={(e) => setDraft({ ...draft, sandbox: e.target.checked ? 'only' : 'also_outside' })}
              data-testid="rule-edit-sandbox"
            />
            {t('rules.settings.sandboxOnly')}
          </label>
        </>
      )}
      {pathEditable && (
        <>
          <label htmlFor={`${id}-path`}>{t('rules.card.pathLabel')}</label>
          <input
            id={`${id}-path`}
            className="input"
            value={draft.path}
            placeholder={t('rules.card.pathPlaceholder')}
            onChange={(e) => setDraft({ ...draft, path: e.target.value })}
            data-testid="rule-edit-path"
          />
        </>
      )}
      {decision === 'deny' && (
        <>
          <label htmlFor={`${id}-reason`}>{t('rules.card.reasonLabel')}</label>
          <input
            id={`${id}-reason`}
            className="input"
            value={reason}
            maxLength={2000}
            placeholder={t('rules.card.reasonPlaceholder')}
            onChange={(e) => setReason(e.target.value)}
            data-testid="rule-edit-reason"
          />
        </>
      )}
      <FormBanner banner={error ? { tone: 'error', text: error, testId: 'rule-edit-error' } : null} />
      <div className="rule-edit-actions">
        <button type="button" className="btn" onClick={onDone}>
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn btn-primary" data-testid="rule-edit-save">
          {t('rules.settings.save')}
        </button>
      </div>
    </form>
  );
}

/**
 * Settings → Rules: every permission rule, with where it came from (which card, when), how often
 * it decided a call and when it last did; edit and revoke. Read again whenever a rule changes.
 */
export function RulesSettings() {
  const { t } = useTranslation();
  const version = useAppStore((s) => s.rulesVersion);
  const sessions = useAppStore((s) => s.sessions);
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    ruleRoutes
      .list({})
      .then((list) => live && setRules(list))
      .catch((err: unknown) => live && setError(errorMessage(err)));
    return () => {
      live = false;
    };
  }, [version]);
  const title = (sessionId: string): string => sessions.find((s) => s.id === sessionId)?.title || t('sidebar.untitled');
  const origin = (r: Rule): string => {
    if (r.origin.kind === 'card')
      return t('rules.settings.fromCard', {
        title: r.origin.sessionTitle || t('sidebar.untitled'),
        when: when(r.createdAt),
      });
    if (r.origin.kind === 'migrated') return t('rules.settings.migrated', { when: when(r.createdAt) });
    return t('rules.settings.fromSettings', { when: when(r.createdAt) });
  };
  const revoke = async (id: string) => {
    try {
      await ruleRoutes.remove({ id });
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  return (
    <section className="settings-section" data-testid="rules-settings">
      <p className="muted">{t('rules.settings.intro')}</p>
      <FormBanner banner={error ? { tone: 'error', text: error, testId: 'rules-error' } : null} />
      {rules && rules.length === 0 && (
        <p className="muted" data-testid="rules-empty">
          {t('rules.settings.empty')}
        </p>
      )}
      <ul className="rules-list rules-settings-list">
        {(rules ?? []).map((r) => (
          <li key={r.id} className={`rules-item rule-${r.decision}`} data-testid="rule-row">
            <div className="rules-item-main">
              <span className={`badge rule-badge rule-${r.decision}`}>{t(`rules.decision.${r.decision}`)}</span>
              <code className="rules-item-match">{matchText(t, r.match)}</code>
              <span className="muted">
                {scopeText(t, r.scope, r.scope.kind === 'session' ? title(r.scope.sessionId) : undefined)}
              </span>
            </div>
            {r.reason && <div className="rules-item-reason">{t('rules.note.reason', { reason: r.reason })}</div>}
            <div className="rules-item-meta muted">
              <span>{origin(r)}</span>
              <span data-testid="rule-hits">
                {r.lastHitAt === null
                  ? t('rules.settings.never')
                  : t('rules.settings.hits', { count: r.hits, when: when(r.lastHitAt) })}
              </span>
            </div>
            {editing === r.id ? (
              <RuleEditor rule={r} onDone={() => setEditing(null)} />
            ) : (
              <div className="rules-item-actions">
                <button
                  type="button"
                  className="btn btn-ghost"
                  onClick={() => setEditing(r.id)}
                  data-testid="rule-edit-open"
                >
                  {t('rules.settings.edit')}
                </button>
                <button
                  type="button"
                  className="btn btn-ghost"
                  onClick={() => void revoke(r.id)}
                  data-testid="rule-revoke"
                >
                  {t('rules.revoke')}
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
