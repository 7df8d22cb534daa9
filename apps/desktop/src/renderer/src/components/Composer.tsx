import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { ContextMeter } from './ContextMeter';
import { ResendWarning } from './CostViews';
import { OverWindowWarning, useOverWindowGate } from './OverWindowWarning';
import { IconPaperclip, IconSend, IconStop } from './Icons';
import { ComposerAttachments } from './Attachments';
import { CompactControl } from './CompactControl';
import { QueuedMessages } from './QueuedMessages';
import { useAttachments } from '../hooks/useAttachments';
import { COMPOSER_ID } from '../lib/composerId';
import { isReachable } from './ConnectionBanner';
import { useSlashMenu } from './SlashMenu';

export { COMPOSER_ID };

/** Unsent text per session, so switching sessions neither loses a draft nor carries it over. */
const drafts = new Map<string, string>();

/** The input: Enter sends, Shift+Enter breaks the line, Escape stops a running reply. */
export function Composer({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  // Nothing can be sent while the runtime is out of reach (the banner above says why).
  const offline = useAppStore((s) => !isReachable(s.connection));
  const send = useAppStore((s) => s.send);
  const cancel = useAppStore((s) => s.cancel);
  const [text, setTextState] = useState(() => drafts.get(sessionId) ?? '');
  const ref = useRef<HTMLTextAreaElement>(null);
  const setText = (v: string | ((cur: string) => string)) =>
    setTextState((cur) => {
      const next = typeof v === 'function' ? v(cur) : v;
      if (next) drafts.set(sessionId, next);
      else drafts.delete(sessionId);
      return next;
    });

  // Another session: show its draft (state adjusted while rendering, as React recommends).
  const [shownFor, setShownFor] = useState(sessionId);
  if (shownFor !== sessionId) {
    setShownFor(sessionId);
    setTextState(drafts.get(sessionId) ?? '');
  }

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [text]);

  useEffect(() => {
    ref.current?.focus();
  }, [sessionId]);

  const slash = useSlashMenu(sessionId, text, setText);
  const files = useAttachments(sessionId);
  const picker = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const canSend = (text.trim() !== '' || files.ready.length > 0) && !files.uploading;

  const enqueue = useAppStore((s) => s.enqueue);
  const compact = useAppStore((s) => s.compact);
  /** A send held back because it would be over the whole window (OverWindowWarning). */
  const gate = useOverWindowGate(sessionId);
  const sendNow = () => {
    const value = text;
    const ids = files.ready;
    setText('');
    void send(sessionId, value, ids).then((ok) => {
      if (!ok) setText((cur) => cur || value);
      else files.clear();
    });
  };
  const submit = async () => {
    if (offline || !canSend || gate.measuring) return;
    if (busy) {
      // Typed during a turn: queued with its attachments, sent when the turn ends (shown above the
      // input, cancellable).
      enqueue(sessionId, text, files.ready);
      setText('');
      files.clear();
      return;
    }
    // Over the window, or the draft would bring it there: say so first, and offer to compact
    // before the request waits on it (a second Send while it shows sends).
    if (gate.hold === null && !(await gate.check(text))) return;
    gate.release();
    sendNow();
  };

  return (
    <div className="composer-wrap">
      <QueuedMessages sessionId={sessionId} />
      {gate.hold && !busy ? (
        <OverWindowWarning
          hold={gate.hold}
          canCompact={gate.canCompact}
          onCompactThenSend={() => {
            gate.release();
            void compact(sessionId).then(sendNow);
          }}
          onSend={() => {
            gate.release();
            sendNow();
          }}
          onCancel={() => {
            gate.release();
            ref.current?.focus();
          }}
        />
      ) : (
        <ResendWarning sessionId={sessionId} typing={text.trim().length > 0} />
      )}
      <div
        className={`composer ${dragging ? 'is-dropping' : ''}`}
        onDragOver={(e) => {
          if (!e.dataTransfer.types.includes('Files')) return;
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={(e) => {
          if (e.dataTransfer.files.length === 0) return;
          e.preventDefault();
          setDragging(false);
          files.add([...e.dataTransfer.files]);
        }}
        data-testid="composer"
      >
        {slash.menu}
        <ComposerAttachments items={files.items} onRemove={files.remove} />
        <textarea
          id={COMPOSER_ID}
          ref={ref}
          className="composer-input"
          rows={1}
          value={text}
          placeholder={t('chat.input.placeholder')}
          aria-label={t('chat.input.label')}
          onChange={(e) => setText(e.target.value)}
          onPaste={(e) => {
            // A screenshot or copied files: attached. Text (even with a picture beside it, as an
            // office app copies) is pasted as text.
            const pasted = [...e.clipboardData.files];
            if (pasted.length === 0 || e.clipboardData.getData('text/plain') !== '') return;
            e.preventDefault();
            files.add(pasted);
          }}
          {...slash.inputProps}
          onKeyDown={(e) => {
            if (slash.onKeyDown(e)) return;
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void submit();
            } else if (e.key === 'Escape' && busy) {
              e.preventDefault();
              void cancel(sessionId);
            }
          }}
          data-testid="composer-input"
        />
        <div className="composer-bar">
          <button
            type="button"
            className="btn btn-ghost attach-btn"
            onClick={() => picker.current?.click()}
            aria-label={t('chat.attach.button')}
            title={t('chat.attach.button')}
            data-testid="attach-button"
          >
            <IconPaperclip />
          </button>
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            onChange={(e) => {
              files.add([...(e.target.files ?? [])]);
              e.target.value = '';
            }}
            data-testid="attach-input"
          />
          <CompactControl sessionId={sessionId} />
          <span className="spacer" />
          <ContextMeter sessionId={sessionId} />
          {busy ? (
            <button
              type="button"
              className="send-btn stop"
              onClick={() => void cancel(sessionId)}
              aria-label={t('chat.stop')}
              title={t('chat.stopHint')}
              data-testid="stop-button"
            >
              <IconStop />
            </button>
          ) : (
            <button
              type="button"
              className="send-btn"
              onClick={() => void submit()}
              disabled={offline || !canSend || gate.measuring}
              aria-label={t('chat.send')}
              title={t('chat.sendHint')}
              data-testid="send-button"
            >
              <IconSend />
            </button>
          )}
        </div>
      </div>
      <div className="composer-hint">{busy ? t('chat.input.hintBusy') : t('chat.input.hint')}</div>
    </div>
  );
}
