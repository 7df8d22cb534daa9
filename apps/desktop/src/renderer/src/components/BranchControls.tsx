import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Versions } from '../lib/transcript';
import { useAppStore } from '../store';
import { IconChevron } from './Icons';

/** ‹ 2/3 ›: which version of a message (and so which branch) is shown and sent to the model. */
export function VersionSwitcher({ sessionId, versions }: { sessionId: string; versions: Versions }) {
  const { t } = useTranslation();
  const switchBranch = useAppStore((s) => s.switchBranch);
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const go = (index: number) => {
    const id = versions.ids[index - 1];
    if (id) void switchBranch(sessionId, id);
  };
  return (
    <span className="version-switcher" data-testid="version-switcher">
      <button
        type="button"
        className="icon-btn"
        disabled={busy || versions.index <= 1}
        aria-label={t('chat.versions.previous')}
        title={t('chat.versions.previous')}
        onClick={() => go(versions.index - 1)}
        data-testid="version-prev"
      >
        <IconChevron className="chev-left" />
      </button>
      <span className="version-label" aria-live="polite" data-testid="version-label">
        {t('chat.versions.label', { index: versions.index, count: versions.count })}
      </span>
      <button
        type="button"
        className="icon-btn"
        disabled={busy || versions.index >= versions.count}
        aria-label={t('chat.versions.next')}
        title={t('chat.versions.next')}
        onClick={() => go(versions.index + 1)}
        data-testid="version-next"
      >
        <IconChevron />
      </button>
    </span>
  );
}

/** Editing a sent message in place: Enter (or Save) sends it as a new version, Esc cancels. */
export function MessageEditor({
  sessionId,
  messageId,
  initial,
  onDone,
}: {
  sessionId: string;
  messageId: string;
  initial: string;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const edit = useAppStore((s) => s.edit);
  const [text, setText] = useState(initial);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const submit = async () => {
    if (!text.trim() || text.trim() === initial.trim()) return onDone();
    if (await edit(sessionId, messageId, text)) onDone();
  };
  return (
    <div className="msg-editor" data-testid="message-editor">
      <textarea
        ref={ref}
        className="msg-editor-input"
        value={text}
        rows={Math.min(10, Math.max(2, text.split('\n').length))}
        aria-label={t('chat.edit.label')}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation(); // handled: it cancels the edit, nothing else
            onDone();
          } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void submit();
          }
        }}
        data-testid="message-editor-input"
      />
      <div className="msg-editor-actions">
        <span className="muted">{t('chat.edit.hint')}</span>
        <button type="button" className="btn btn-small" onClick={onDone}>
          {t('common.cancel')}
        </button>
        <button
          type="button"
          className="btn btn-small btn-primary"
          onClick={() => void submit()}
          data-testid="message-editor-send"
        >
          {t('chat.edit.send')}
        </button>
      </div>
    </div>
  );
}
