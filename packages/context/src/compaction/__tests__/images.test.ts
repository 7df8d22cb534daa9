import { describe, expect, it } from 'vitest';
import type { AttachmentRef } from '@threadline/protocol';
import { buildView, compact, imageTokens, toCompactionRecord } from '../..';
import { HistoryBuilder, MODEL } from './fixtures';

const shot = (n: number): AttachmentRef => ({
  id: `img${n}`,
  kind: 'image',
  name: `shot-${n}.png`,
  mime: 'image/png',
  size: 100,
  width: 2048,
  height: 2048,
});

/** A short conversation whose window is mostly screenshots. */
function screenshots(): HistoryBuilder {
  const h = new HistoryBuilder();
  h.system();
  for (let i = 0; i < 4; i++) {
    h.add({ role: 'user', content: `what about this one (${i})?`, meta: { attachments: [shot(i)] } });
    h.assistant(`It shows step ${i}.`);
  }
  h.user('and now?');
  return h;
}

describe('compaction and images', () => {
  it('counts the images in view, and turns them into placeholders before hiding any text', async () => {
    const h = screenshots();
    const view = buildView({ history: h.messages, model: MODEL });
    const images = 4 * imageTokens(2048, 2048);
    expect(view.tokens).toBeGreaterThan(images);
    const window = Math.ceil(view.tokens / 0.9); // 90 % used, nearly all of it images
    const r = await compact({
      history: h.messages,
      strategy: 'priority_chain',
      model: MODEL,
      window,
      trigger: 'auto',
      threshold: 0.8,
    });
    expect(r.ok).toBe(true);
    expect(r.tokensBefore).toBe(view.tokens);
    expect(r.steps[0]).toMatchObject({ name: 'placeholder_images', images: 4 });
    // The images alone were enough: no text was hidden.
    expect(r.hiddenIds).toEqual([]);
    const record = toCompactionRecord(r, { sessionId: 's', createdAt: 0 });
    const after = buildView({ history: [...h.messages, ...r.inserted], compactions: [record], model: MODEL });
    expect(after.messages.some((m) => (m.images?.length ?? 0) > 0)).toBe(false);
    expect(after.messages.filter((m) => m.content?.includes('[image: shot-'))).toHaveLength(4);
    expect(Math.abs(after.tokens - r.tokensAfter)).toBeLessThanOrEqual(8);
  });

  it('does not count images an earlier compaction already turned into placeholders', async () => {
    const h = screenshots();
    const first = await compact({
      history: h.messages,
      strategy: 'priority_chain',
      model: MODEL,
      window: 10_000,
      trigger: 'manual',
    });
    expect(first.ok).toBe(true);
    const record = toCompactionRecord(first, { sessionId: 's', createdAt: 0 });
    const history = [...h.messages, ...first.inserted];
    const again = await compact({
      history,
      compactions: [record],
      strategy: 'priority_chain',
      model: MODEL,
      window: 10_000,
      trigger: 'manual',
    });
    expect(again.steps.some((s) => s.name === 'placeholder_images')).toBe(false);
  });
});
