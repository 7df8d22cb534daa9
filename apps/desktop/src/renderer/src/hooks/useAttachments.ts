import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { errorMessage } from '@threadline/protocol';
import { useAppStore } from '../store';
import { attachmentRoutes } from '../store/routes';
import { forgetImages, isImageFile, uploadFile, type PendingAttachment } from '../lib/attachFile';
import { RpcError } from '../transport';

/** Unsent attachments per session, likewise. */
const pendingFiles = new Map<string, PendingAttachment[]>();

/**
 * An attachment taken out of a composer or the queue before it was sent: deleted from the store
 * unless another composer or queued message still holds it (the same file attached twice is one
 * attachment); the host keeps it anyway while a message refers to it. A failed delete is left to
 * the start-up sweep of unsent attachments.
 */
export function discardUnsent(id: string): void {
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
export function useAttachments(sessionId: string) {
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
