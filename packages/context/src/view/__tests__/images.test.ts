import { describe, expect, it } from 'vitest';
import type { AttachmentRef, CompactionRecord, StoredMessage } from '@threadline/protocol';
import { buildView, countMessageTokens, imageTokens, visionSupport } from '../..';

const shot: AttachmentRef = {
  id: 'a1',
  kind: 'image',
  name: 'shot.png',
  mime: 'image/png',
  size: 10,
  width: 1024,
  height: 1024,
};
const log: AttachmentRef = { id: 'a2', kind: 'text', name: 'app.log', mime: 'text/plain', size: 10, chars: 3 };

function msg(seq: number, p: Partial<StoredMessage> & Pick<StoredMessage, 'role'>): StoredMessage {
  return {
    id: `m${seq}`,
    sessionId: 's',
    seq,
    createdAt: 0,
    content: null,
    kind: 'normal',
    visibility: { user: true, agent: true },
    tokens: null,
    ...p,
  };
}
const compaction = (afterSeq: number, active = true): CompactionRecord => ({
  id: 'c1',
  sessionId: 's',
  strategy: 'legacy_segmented',
  trigger: 'manual',
  steps: [],
  hiddenIds: [],
  insertedIds: [],
  tokensBefore: 0,
  tokensAfter: 0,
  summary: null,
  instructions: null,
  afterSeq,
  active,
  createdAt: 0,
  undoneAt: null,
});

const history = (): StoredMessage[] => [
  msg(0, { role: 'user', content: 'what is on this screen?', meta: { attachments: [shot, log] } }),
  msg(1, { role: 'assistant', content: 'A terminal.' }),
  msg(2, { role: 'user', content: 'and now?' }),
];

describe('images in the view', () => {
  it("counts an image by OpenAI's tile rule", () => {
    expect(imageTokens(1024, 1024)).toBe(765);
    expect(imageTokens(2048, 4096)).toBe(1105);
    expect(imageTokens(100, 50)).toBe(255);
  });

  it('sends the images of messages after the last compaction as image parts, counted', () => {
    const plain = buildView({ history: history().map((m) => ({ ...m, meta: undefined })), model: 'gpt-4o' });
    const view = buildView({ history: history(), model: 'gpt-4o' });
    const first = view.messages[0]!;
    expect(first.images).toEqual([
      { type: 'image', attachmentId: 'a1', name: 'shot.png', mime: 'image/png', width: 1024, height: 1024 },
    ]);
    expect(first.content).toBe('what is on this screen?');
    expect(view.tokens - plain.tokens).toBe(765);
    expect(view.breakdown.messages - plain.breakdown.messages).toBe(765);
  });

  it('turns the images of messages a compaction saw into a placeholder naming the file', () => {
    const undone = buildView({ history: history(), compactions: [compaction(1, false)], model: 'gpt-4o' });
    expect(undone.messages[0]!.images).toHaveLength(1);
    const view = buildView({ history: history(), compactions: [compaction(1)], model: 'gpt-4o' });
    const first = view.messages[0]!;
    expect(first.images).toBeUndefined();
    expect(first.content).toBe('what is on this screen?\n[image: shot.png]');
    // The placeholder is counted on its own (no recount of the text): within a token of a full count.
    expect(Math.abs(view.entries[0]!.tokens - countMessageTokens(first, 'gpt-4o'))).toBeLessThanOrEqual(1);
    expect(view.tokens).toBeLessThan(undone.tokens - 700);
  });
});

describe('vision support', () => {
  it('knows vision families, text-only ones, and says null for the rest', () => {
    expect(visionSupport('gpt-4o-mini')).toBe(true);
    expect(visionSupport('openai/gpt-4.1')).toBe(true);
    expect(visionSupport('claude-sonnet-4-5')).toBe(true);
    expect(visionSupport('deepseek-chat')).toBe(false);
    expect(visionSupport('o3-mini')).toBe(false);
    expect(visionSupport('llama3.2-vision:11b')).toBe(true);
    expect(visionSupport('llama3.1:8b')).toBe(false);
    expect(visionSupport('fake-model')).toBeNull();
  });
});
