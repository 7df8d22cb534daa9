import type { AppState, StreamingMessage } from './types';

type Get = () => AppState;
type Set = (patch: Partial<AppState>) => void;

/**
 * Deltas arrive many times per frame; coalesce them and render at most once per frame so a fast
 * stream does not re-parse Markdown hundreds of times a second.
 */
export function createDeltaBuffer(get: Get, set: Set) {
  const pending = new Map<string, { sessionId: string; text: string; reasoning: string }>();
  let scheduled = false;
  const schedule =
    typeof requestAnimationFrame === 'function' && typeof document !== 'undefined' && !document.hidden
      ? (fn: () => void) => requestAnimationFrame(() => fn())
      : (fn: () => void) => setTimeout(fn, 16);

  const flush = () => {
    scheduled = false;
    if (pending.size === 0) return;
    const streaming = { ...get().streaming };
    for (const [messageId, p] of pending) {
      const prev: StreamingMessage | undefined = streaming[messageId];
      const reasoning = (prev?.reasoning ?? '') + p.reasoning;
      streaming[messageId] = {
        sessionId: p.sessionId,
        messageId,
        text: (prev?.text ?? '') + p.text,
        ...(reasoning !== '' ? { reasoning } : {}),
      };
    }
    pending.clear();
    set({ streaming });
  };

  return {
    /** `reasoning`: the delta is of the model's thinking, not of its answer. */
    push(sessionId: string, messageId: string, delta: string, reasoning = false) {
      let p = pending.get(messageId);
      if (!p) pending.set(messageId, (p = { sessionId, text: '', reasoning: '' }));
      if (reasoning) p.reasoning += delta;
      else p.text += delta;
      if (!scheduled) {
        scheduled = true;
        schedule(flush);
      }
    },
    drop(messageId: string) {
      pending.delete(messageId);
    },
    flush,
  };
}
