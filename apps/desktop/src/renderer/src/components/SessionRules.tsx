import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { useDismiss } from '../hooks/useDismiss';
import { matchText, scopeText } from '../lib/ruleText';
import { IconShield, IconX } from './Icons';

/**
 * The permission rules in force for this session, in the chat header: how many, and on click each
 * one (what it decides, matches and where it holds) with Revoke, and a way to Settings → Rules.
 * Nothing is shown while no rule holds.
 */
export function SessionRules({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const rules = useAppStore((s) => s.bySession[sessionId]?.rules);
  const revokeRule = useAppStore((s) => s.revokeRule);
  const openSettings = useAppStore((s) => s.openSettings);
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, ref, () => setOpen(false));
  if (!rules || rules.length === 0) return null;
  const denies = rules.some((r) => r.decision === 'deny');
  return (
    <div className="split-btn" ref={ref}>
      <button
        type="button"
        className={`btn btn-ghost rules-chip ${denies ? 'has-deny' : ''}`}
        aria-haspopup="dialog"
        aria-expanded={open}
        title={t('rules.chip.hint', { count: rules.length })}
        onClick={() => setOpen(!open)}
        data-testid="session-rules"
      >
        <IconShield />
        <span className="btn-label">{t('rules.chip.label', { count: rules.length })}</span>
      </button>
      {open && (
        <div className="menu menu-down rules-popover" role="dialog" aria-label={t('rules.chip.title')}>
          <div className="rules-popover-title">{t('rules.chip.title')}</div>
          <ul className="rules-list">
            {rules.map((r) => (
              <li key={r.id} className={`rules-item rule-${r.decision}`} data-testid="session-rule">
                <span className={`badge rule-badge rule-${r.decision}`}>{t(`rules.decision.${r.decision}`)}</span>
                <span className="rules-item-text">
                  <code>{matchText(t, r.match)}</code>
                  <span className="muted"> {scopeText(t, r.scope)}</span>
                </span>
                <button
                  type="button"
                  className="icon-btn"
                  aria-label={t('rules.revokeOne', { rule: matchText(t, r.match) })}
                  title={t('rules.revoke')}
                  onClick={() => void revokeRule(r.id)}
                  data-testid="session-rule-revoke"
                >
                  <IconX />
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            className="link-btn"
            onClick={() => {
              setOpen(false);
              openSettings('rules');
            }}
            data-testid="session-rules-settings"
          >
            {t('rules.chip.all')}
          </button>
        </div>
      )}
    </div>
  );
}
