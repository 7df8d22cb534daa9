import { useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { ATTACHMENT_LIMITS, type AttachmentCut, type AttachmentRef } from '@threadline/protocol';
import { formatBytes } from '../lib/sizes';
import { imageUrl, thumbUrl, type PendingAttachment } from '../lib/attachFile';
import { attachmentRoutes } from '../store/routes';
import { Dialog } from './Dialog';
import { IconAlert, IconFile, IconX } from './Icons';

/** An attachment's image as a data URL once loaded: its thumbnail, or the full image. */
function useImage(att: AttachmentRef, size: 'thumb' | 'full'): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void (size === 'thumb' ? thumbUrl(att.id, att) : imageUrl(att.id)).then((u) => live && setUrl(u));
    return () => {
      live = false;
    };
    // The ref's other fields belong to its id.
  }, [att.id, size]);
  return url;
}

/** What the composer holds before sending: thumbnails and file chips, each removable. */
export function ComposerAttachments({
  items,
  onRemove,
}: {
  items: PendingAttachment[];
  onRemove: (key: string) => void;
}) {
  const { t } = useTranslation();
  if (items.length === 0) return null;
  const cuts = items.filter((a) => a.cut && a.status === 'ready');
  return (
    <>
      <ul
        className="attach-strip attach-strip-composer"
        aria-label={t('chat.attach.list')}
        data-testid="composer-attachments"
      >
        {items.map((a) => (
          <li
            key={a.key}
            className={`attach-chip ${a.status === 'error' ? 'is-error' : ''}`}
            data-testid="composer-attachment"
            data-status={a.status}
            title={a.error ?? a.name}
          >
            {a.kind === 'image' && a.preview ? (
              <img className="attach-thumb" src={a.preview} alt={t('chat.attach.imageAlt', { name: a.name })} />
            ) : a.status === 'error' ? (
              <IconAlert />
            ) : (
              <IconFile />
            )}
            <span className="attach-name">{a.status === 'error' ? a.error : a.name}</span>
            {a.status === 'uploading' && <span className="spinner" aria-label={t('chat.attach.uploading')} />}
            <button
              type="button"
              className="icon-btn attach-remove"
              aria-label={t('chat.attach.remove', { name: a.name })}
              title={t('chat.attach.remove', { name: a.name })}
              onClick={() => onRemove(a.key)}
            >
              <IconX />
            </button>
          </li>
        ))}
      </ul>
      {cuts.length > 0 && (
        <div className="attach-cuts" role="status" data-testid="attachment-cuts">
          {cuts.map((a) => (
            <p key={a.key} className="attach-cut">
              <IconAlert />
              <strong>{a.name}</strong>: {cutSentence(a.cut!, t)}
            </p>
          ))}
        </div>
      )}
    </>
  );
}

/** What was kept of a file whose reading stopped at a limit, and which limit, in the user's words. */
export function cutSentence(cut: AttachmentCut, t: TFunction): string {
  const values = {
    kept: cut.keptPages.toLocaleString(),
    total: (cut.totalPages ?? 0).toLocaleString(),
    seconds: ATTACHMENT_LIMITS.extractSeconds,
    mb: ATTACHMENT_LIMITS.extractMemoryMb,
    pages: ATTACHMENT_LIMITS.extractPages.toLocaleString(),
    chars: ATTACHMENT_LIMITS.extractChars.toLocaleString(),
  };
  if (cut.keptPages === 0)
    return t(cut.limit === 'memory' ? 'chat.attach.cut.noneMemory' : 'chat.attach.cut.noneTime', values);
  return t(`chat.attach.cut.${cut.limit}`, values);
}

function ImageThumb({ att, onOpen }: { att: AttachmentRef; onOpen: () => void }) {
  const { t } = useTranslation();
  const url = useImage(att, 'thumb');
  return (
    <button
      type="button"
      className="attach-image"
      onClick={onOpen}
      aria-label={t('chat.attach.open', { name: att.name })}
      title={att.name}
      data-testid="message-image"
    >
      {url ? (
        <img src={url} alt={t('chat.attach.imageAlt', { name: att.name })} />
      ) : (
        <span className="attach-image-empty" />
      )}
    </button>
  );
}

function ImageViewer({ att, onClose }: { att: AttachmentRef; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const url = useImage(att, 'full');
  return (
    <Dialog title={att.name} onClose={onClose} testId="image-viewer">
      <div className="image-viewer">
        {url ? <img src={url} alt={t('chat.attach.imageAlt', { name: att.name })} /> : t('chat.attach.loading')}
      </div>
      <div className="muted">
        {t('chat.attach.imageMeta', {
          width: att.width ?? 0,
          height: att.height ?? 0,
          size: formatBytes(att.size, i18n.language),
        })}
      </div>
    </Dialog>
  );
}

function TextViewer({ att, onClose }: { att: AttachmentRef; onClose: () => void }) {
  const { t } = useTranslation();
  const [text, setText] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    attachmentRoutes.get({ id: att.id, limit: 200_000 }).then(
      (r) => setText(r.text ?? ''),
      () => setFailed(true),
    );
  }, [att.id]);
  const more = (att.chars ?? 0) > 200_000;
  return (
    <Dialog title={att.name} onClose={onClose} testId="text-viewer">
      <pre className="attach-text">{failed ? t('chat.attach.loadFailed') : (text ?? t('chat.attach.loading'))}</pre>
      {more && <div className="muted">{t('chat.attach.textCut', { chars: (att.chars ?? 0).toLocaleString() })}</div>}
    </Dialog>
  );
}

/** A sent message's attachments: image thumbnails that open full size, file chips that open their text. */
export function MessageAttachments({ refs }: { refs: AttachmentRef[] }) {
  const { t, i18n } = useTranslation();
  const [open, setOpen] = useState<AttachmentRef | null>(null);
  if (refs.length === 0) return null;
  return (
    <>
      <div className="attach-strip" data-testid="message-attachments">
        {refs.map((a) =>
          a.kind === 'image' ? (
            <ImageThumb key={a.id} att={a} onOpen={() => setOpen(a)} />
          ) : (
            <button
              key={a.id}
              type="button"
              className="attach-chip attach-file"
              onClick={() => setOpen(a)}
              aria-label={t('chat.attach.open', { name: a.name })}
              data-testid="message-file"
            >
              <IconFile />
              <span className="attach-name">{a.name}</span>
              <span className="muted attach-meta">
                {a.pages !== undefined
                  ? t('chat.attach.pdfMeta', { count: a.pages })
                  : t('chat.attach.textMeta', { size: formatBytes(a.size, i18n.language) })}
              </span>
            </button>
          ),
        )}
      </div>
      {/* Out of the transcript's rows: a row is positioned by the virtual list, the dialog covers the window. */}
      {open?.kind === 'image' && createPortal(<ImageViewer att={open} onClose={() => setOpen(null)} />, document.body)}
      {open?.kind === 'text' && createPortal(<TextViewer att={open} onClose={() => setOpen(null)} />, document.body)}
    </>
  );
}
