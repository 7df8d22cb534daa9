import { useTranslation } from 'react-i18next';
import { RuleNoteSchema, type RuleNote } from '@threadline/protocol';
import { useAppStore } from '../store';
import { matchText, scopeText } from '../lib/ruleText';
import { IconShield } from './Icons';

/** The rule a tool result names (meta.rule, written by the runtime), or null. */
export function ruleNoteOf(meta: Record<string, unknown> | undefined): RuleNote | null {
  const parsed = RuleNoteSchema.safeParse(meta?.rule);
  return parsed.success ? parsed.data : null;
}

/**
 * Which rule decided a call, on its card: it ran because of one (each part of a compound command
 * may name its own), a rule refused it (with the reason the model was told), or, while it waits,
 * a rule made it ask. "Rules" opens Settings → Rules, where it can be changed or revoked.
 */
export function RuleLine({ note, waiting }: { note: RuleNote; waiting: boolean }) {
  const { t } = useTranslation();
  const openSettings = useAppStore((s) => s.openSettings);
  const key = waiting
    ? note.decision === 'deny'
      ? 'rules.note.mayDeny'
      : 'rules.note.asked'
    : note.decision === 'deny'
      ? 'rules.note.denied'
      : 'rules.note.allowed';
  return (
    <div className={`tool-rule rule-${note.decision}`} data-testid="tool-rule" data-decision={note.decision}>
      <IconShield />
      <span>
        {t(key, { count: note.rules.length })}{' '}
        {note.rules.map((r) => (
          <span key={r.id} className="tool-rule-item">
            <code>{matchText(t, r.match)}</code> <span className="muted">({scopeText(t, r.scope)})</span>
            {r.reason && note.decision === 'deny' && (
              <span className="tool-rule-reason"> {t('rules.note.reason', { reason: r.reason })}</span>
            )}
          </span>
        ))}
      </span>
      <button type="button" className="link-btn" onClick={() => openSettings('rules')} data-testid="tool-rule-open">
        {t('rules.note.open')}
      </button>
    </div>
  );
}
