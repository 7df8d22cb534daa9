import { AppError, type AttachmentRef } from '@threadline/protocol';
import type { Store } from '@threadline/store';
import { attachmentBlock } from './content';

/** What a user message carries of its attachments: the refs (meta.attachments) and the text blocks. */
export interface PreparedAttachments {
  refs: AttachmentRef[];
  /** One block per text attachment, for the message's content. */
  blocks: string[];
}

/** The attachments chat.send names, checked to exist, in the order given (duplicates once). */
export function prepareAttachments(
  store: Store,
  ids: readonly string[],
  names?: ReadonlyMap<string, string>,
): PreparedAttachments {
  const refs: AttachmentRef[] = [];
  const blocks: string[] = [];
  for (const id of new Set(ids)) {
    const stored = store.attachments.get(id);
    if (!stored) throw new AppError('not_found', `No attachment with id ${id}.`);
    const ref = { ...stored, name: names?.get(id) ?? stored.name };
    refs.push(ref);
    if (ref.kind === 'text') blocks.push(attachmentBlock(ref, store.attachments.text(id) ?? ''));
  }
  return { refs, blocks };
}
