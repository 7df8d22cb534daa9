import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A fact's text edited in place (the session's facts, the project's): Enter or Save saves the
 * trimmed text (Shift+Enter: a new line), Esc or Cancel leaves it as it was.
 */
export function FactEditForm({
  initial,
  label,
  saveLabel,
  testIds,
  onSave,
  onCancel,
}: {
  initial: string;
  label: string;
  saveLabel?: string;
  testIds: { input: string; save: string };
  /** The text as saved (trimmed, not empty); the same text as before is the caller's to judge. */
  onSave: (text: string) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState(initial);
  return (
    <form
      className="fact-edit"
      onSubmit={(e) => {
        e.preventDefault();
        if (draft.trim()) onSave(draft.trim());
        else onCancel();
      }}
    >
      <textarea
        className="input"
        rows={2}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          } else if (e.key === 'Escape') {
            e.stopPropagation();
            onCancel();
          }
        }}
        aria-label={label}
        autoFocus
        data-testid={testIds.input}
      />
      <div className="row-gap">
        <button type="submit" className="btn btn-small btn-primary" data-testid={testIds.save}>
          {saveLabel ?? t('common.save')}
        </button>
        <button type="button" className="btn btn-small" onClick={onCancel}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
