import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { ContextMeter } from './ContextMeter';
import { ResendWarning } from './CostViews';
import { OverWindowWarning, useOverWindowGate } from './OverWindowWarning';
import { useDismiss } from '../hooks/useDismiss';
import { Dialog } from './Dialog';
import { IconChevronDown, IconLayers, IconPaperclip, IconSend, IconStop, IconX } from './Icons';
import { ComposerAttachments } from './Attachments';
import { forgetImages, isImageFile, uploadFile, type PendingAttachment } from '../lib/attachFile';
import { RpcError } from '../transport';
import { attachmentRoutes } from '../store/routes';
import type { TFunction } from 'i18next';

import { COMPOSER_ID } from '../lib/composerId';
import { isReachable } from './ConnectionBanner';
import { useSlashMenu } from './SlashMenu';
import { errorMessage } from '@threadline/protocol';
import { useInViewport } from '../hooks/useInViewport';

export { COMPOSER_ID };

function CompactControl({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const fit = useInViewport<HTMLDivElement>();
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const compacting = useAppStore((s) => Boolean(s.bySession[sessionId]?.compacting));
  const canCompact = useAppStore((s) => s.bySession[sessionId]?.usage?.canCompact ?? false);
  const compact = useAppStore((s) => s.compact);
  const [menu, setMenu] = useState(false);
  const [dialog, setDialog] = useState(false);
  const [instructions, setInstructions] = useState('');
  const menuRef = useRef<HTMLDivElement>(null);

  useDismiss(menu, menuRef, () => setMenu(false));

  const reason = compacting
    ? t('chat.compact.running')
    : busy
      ? t('chat.compact.disabledBusy')
      : !canCompact
        ? t('chat.compact.disabledNothing')
        : t('chat.compact.hint');
  const disabled = busy || compacting || !canCompact;

  return (
    <div className="split-btn" ref={menuRef}>
      <button
        type="button"
        className={`btn btn-ghost ${compacting ? 'is-running' : ''}`}
        disabled={disabled}
        title={reason}
        aria-label={`${t('chat.compact.button')}: ${reason}`}
        onClick={() => void compact(sessionId)}
        data-testid="compact-button"
      >
        {compacting ? <span className="spinner" aria-hidden /> : <IconLayers />}
        {compacting ? t('chat.compact.running') : t('chat.compact.button')}
      </button>
      <button
        type="button"
        className="btn btn-ghost split-caret"
        disabled={disabled}
        aria-label={t('chat.compact.more')}
        title={t('chat.compact.more')}
        aria-haspopup="menu"
        aria-expanded={menu}
        onClick={() => setMenu(!menu)}
        data-testid="compact-menu"
      >
        <IconChevronDown />
      </button>
      {menu && (
        <div ref={fit} className="menu" role="menu">
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => {
              setMenu(false);
              setDialog(true);
            }}
          >
            {t('chat.compact.withInstructions')}
          </button>
        </div>
      )}
      {dialog && (
        <Dialog
          title={t('chat.compact.dialogTitle')}
          onClose={() => setDialog(false)}
          testId="compact-dialog"
          footer={
            <>
              <button type="button" className="btn" onClick={() => setDialog(false)}>
                {t('common.cancel')}
              </button>
              <button
                type="button"
                className="btn btn-primary"
                disabled={!instructions.trim()}
                onClick={() => {
                  setDialog(false);
                  void compact(sessionId, instructions);
                  setInstructions('');
                }}
              >
                {t('chat.compact.button')}
              </button>
            </>
          }
        >
          <p className="muted">{t('chat.compact.dialogHint')}</p>
          <textarea
            className="input"
            rows={4}
            value={instructions}
            placeholder={t('chat.compact.instructionsPlaceholder')}
            aria-label={t('chat.compact.instructionsPlaceholder')}
            onChange={(e) => setInstructions(e.target.value)}
          />
        </Dialog>
      )}
    </div>
  );
}

/** Messages typed during the running turn: each can be taken back, or sent now once the turn has ended. */
function QueuedMessages({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const queued = useAppStore((s) => s.bySession[sessionId]?.queued);
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const unqueue = useAppStore((s) => s.unqueue);
  const send = useAppStore((s) => s.send);
  if (!queued || queued.length === 0) return null;
  return (
    <ul className="queued-list" aria-label={t('chat.queue.label')} data-testid="queued-list">
      {queued.map((q) => (
        <li key={q.id} className="queued-item" data-testid="queued-item">
          <span className="queued-badge">{busy ? t('chat.queue.waiting') : t('chat.queue.held')}</span>
          <span className="queued-text" title={q.text}>
            {q.text}
          </span>
          {q.attachments.length > 0 && (
            <span className="queued-files" title={t('chat.queue.attachments', { count: q.attachments.length })}>
              <IconPaperclip width={12} height={12} />
              {q.attachments.length}
            </span>
          )}
          {!busy && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => {
                const item = unqueue(sessionId, q.id);
                if (item) void send(sessionId, item.text, item.attachments);
              }}
              data-testid="queued-send"
            >
              {t('chat.queue.sendNow')}
            </button>
          )}
          <button
            type="button"
            className="icon-btn"
            aria-label={t('chat.queue.remove')}
            title={t('chat.queue.remove')}
            onClick={() => {
              const item = unqueue(sessionId, q.id);
              for (const id of item?.attachments ?? []) discardUnsent(id);
            }}
            data-testid="queued-remove"
          >
            <IconX />
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Unsent text per session, so switching sessions neither loses a draft nor carries it over. */
const drafts = new Map<string, string>();
/** Unsent attachments per session, likewise. */
const pendingFiles = new Map<string, PendingAttachment[]>();

/**
 * An attachment taken out of a composer or the queue before it was sent: deleted from the store
 * unless another composer or queued message still holds it (the same file attached twice is one
 * attachment); the host keeps it anyway while a message refers to it. A failed delete is left to
 * the start-up sweep of unsent attachments.
 */
function discardUnsent(id: string): void {
  const inComposer = [...pendingFiles.values()].some((list) => list.some((a) => a.ref?.id === id));
  const inQueue = Object.values(useAppStore.getState().bySession).some((s) =>
    s.queued.some((q) => q.attachments.includes(id)),
  );
  if (inComposer || inQueue) return;
  forgetImages(id);
  void attachmentRoutes.discard({ id }).catch(() => undefined);
}

function uploadError(err: unknown, t: TFunction): string {
  const m = errorMessage(err);
  // Over the cap: said here before sending, or by the host while it streams (HTTP 413).
  if (m === 'file_too_large' || (err instanceof RpcError && err.code === 'too_large')) return t('chat.attach.tooLarge');
  if (m === 'image_too_large') return t('chat.attach.imageTooLarge');
  return m;
}

/**
 * Files pasted, dropped or picked for a session: each uploads at once (an image resized by a
 * canvas first), shows a thumbnail or a chip, and is sent with the next message.
 */
function useAttachments(sessionId: string) {
  const { t } = useTranslation();
  const [items, setItemsState] = useState<PendingAttachment[]>(() => pendingFiles.get(sessionId) ?? []);
  const [shownFor, setShownFor] = useState(sessionId);
  if (shownFor !== sessionId) {
    setShownFor(sessionId);
    setItemsState(pendingFiles.get(sessionId) ?? []);
  }
  const update = (owner: string, fn: (cur: PendingAttachment[]) => PendingAttachment[]) => {
    const next = fn(pendingFiles.get(owner) ?? []);
    if (next.length > 0) pendingFiles.set(owner, next);
    else pendingFiles.delete(owner);
    if (owner === sessionId) setItemsState(next);
  };
  const add = (files: readonly File[]) => {
    const owner = sessionId;
    // A new attempt's errors replace the last one's: failed chips are not kept beside new ones.
    update(owner, (cur) => cur.filter((a) => a.status !== 'error'));
    for (const file of files) {
      const key = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const image = isImageFile(file);
      update(owner, (cur) => [
        ...cur,
        {
          key,
          name: file.name || (image ? 'image.png' : 'file'),
          kind: image ? 'image' : 'file',
          status: 'uploading',
        },
      ]);
      void uploadFile(file).then(
        ({ ref, preview, cut }) => {
          // Removed while it uploaded: not kept.
          if (!(pendingFiles.get(owner) ?? []).some((a) => a.key === key)) return discardUnsent(ref.id);
          update(owner, (cur) =>
            cur.map((a) => (a.key === key ? { ...a, status: 'ready', ref, preview, ...(cut ? { cut } : {}) } : a)),
          );
        },
        (err: unknown) =>
          update(owner, (cur) =>
            cur.map((a) => (a.key === key ? { ...a, status: 'error', error: uploadError(err, t) } : a)),
          ),
      );
    }
  };
  const remove = (key: string) => {
    const gone = (pendingFiles.get(sessionId) ?? []).find((a) => a.key === key);
    update(sessionId, (cur) => cur.filter((a) => a.key !== key));
    if (gone?.ref) discardUnsent(gone.ref.id);
  };
  const clear = () => update(sessionId, () => []);
  const ready = items.filter((a) => a.status === 'ready' && a.ref).map((a) => a.ref!.id);
  const uploading = items.some((a) => a.status === 'uploading');
  return { items, add, remove, clear, ready, uploading };
}

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
