import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './helpers';

const tmp = useTempDir();
const png = (fill: number): Uint8Array => new Uint8Array(4096).fill(fill);

describe('attachments', () => {
  it('stores the same bytes once and gives each caller its own name', async () => {
    const store = tmp.open();
    const a = await store.attachments.add({
      kind: 'image',
      name: 'one.png',
      mime: 'image/png',
      bytes: png(1),
      width: 64,
      height: 32,
    });
    const b = await store.attachments.add({
      kind: 'image',
      name: 'two.png',
      mime: 'image/png',
      bytes: png(1),
      width: 64,
      height: 32,
    });
    const c = await store.attachments.add({
      kind: 'image',
      name: 'three.png',
      mime: 'image/png',
      bytes: png(2),
      width: 64,
      height: 32,
    });
    expect(b.id).toBe(a.id);
    expect(b.name).toBe('two.png');
    expect(c.id).not.toBe(a.id);
    expect(store.attachments.get(a.id)).toMatchObject({
      kind: 'image',
      name: 'one.png',
      size: 4096,
      width: 64,
      height: 32,
    });
    expect(Buffer.compare(store.attachments.bytes(a.id)!, Buffer.from(png(1)))).toBe(0);
    const db = new Database(store.file, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM attachments').get()).toEqual({ n: 2 });
    db.close();
  });

  it('stores the same megabytes added twice at once as one row (hashed in slices, compressed off the thread)', async () => {
    const store = tmp.open();
    const text = 'a line of a large log file\n'.repeat(150_000);
    const file = { kind: 'text' as const, name: 'big.log', mime: 'text/plain', bytes: Buffer.from(text), text };
    expect(file.bytes.byteLength).toBeGreaterThan(3 * 1024 * 1024);
    const [a, b] = await Promise.all([store.attachments.add(file), store.attachments.add({ ...file, name: 'b.log' })]);
    expect(b.id).toBe(a.id);
    expect(b.name).toBe('b.log');
    expect(store.attachments.text(a.id)).toBe(text);
    const db = new Database(store.file, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM attachments').get()).toEqual({ n: 1 });
    db.close();
  });

  it('keeps a text whole (compressed) with its length, and no bytes for it', async () => {
    const store = tmp.open();
    const text = 'line of a log\n'.repeat(10_000);
    const t = await store.attachments.add({
      kind: 'text',
      name: 'app.log',
      mime: 'text/plain',
      bytes: Buffer.from(text),
      text,
    });
    expect(t.chars).toBe(text.length);
    expect(store.attachments.text(t.id)).toBe(text);
    expect(store.attachments.bytes(t.id)).toBeNull();
    expect(store.attachments.get('nope')).toBeNull();
  });
});

describe('deleting a session', () => {
  it('drops the attachments only it used, keeps those another session still shows', async () => {
    const store = tmp.open();
    const a = store.sessions.create('a');
    const b = store.sessions.create('b');
    const mine = await store.attachments.add({
      kind: 'text',
      name: 'mine.txt',
      mime: 'text/plain',
      bytes: Buffer.from('mine'),
      text: 'mine',
    });
    const shared = await store.attachments.add({
      kind: 'text',
      name: 's.txt',
      mime: 'text/plain',
      bytes: Buffer.from('s'),
      text: 's',
    });
    const pending = await store.attachments.add({
      kind: 'text',
      name: 'p.txt',
      mime: 'text/plain',
      bytes: Buffer.from('p'),
      text: 'p',
    });
    store.messages.append(a.id, [{ role: 'user', content: 'x', meta: { attachments: [mine, shared] } }]);
    store.messages.append(b.id, [{ role: 'user', content: 'y', meta: { attachments: [shared] } }]);
    store.sessions.delete(a.id);
    expect(store.attachments.get(mine.id)).toBeNull();
    expect(store.attachments.get(shared.id)).not.toBeNull();
    // Not sent yet (still in a composer): not this session's to drop.
    expect(store.attachments.get(pending.id)).not.toBeNull();
    store.sessions.delete(b.id);
    expect(store.attachments.get(shared.id)).toBeNull();
  });
});

describe('a model per session', () => {
  it('keeps the profile and model, and a deleted profile sends its sessions back to the active one', () => {
    const store = tmp.open({ allowPlaintextKeys: true });
    const base = { preset: 'custom' as const, baseUrl: 'http://127.0.0.1:1/v1', contextWindow: 8000 };
    const first = store.providers.upsert({ ...base, name: 'First', model: 'm1' });
    const second = store.providers.upsert({ ...base, name: 'Second', model: 'm2' });
    const s1 = store.sessions.create('one');
    const s2 = store.sessions.create('two');
    expect(store.sessions.setModel(s1.id, second.id, 'm2-large')).toMatchObject({
      profileId: second.id,
      model: 'm2-large',
    });
    store.sessions.setModel(s2.id, first.id, null);
    expect(store.providers.delete(second.id)).toBe(1);
    expect(store.sessions.get(s1.id)).toMatchObject({ profileId: null, model: null });
    expect(store.sessions.get(s2.id)).toMatchObject({ profileId: first.id, model: null });
    expect(() => store.sessions.setModel('missing', null, null)).toThrow(/does not exist/);
  });
});

describe('attachments never sent', () => {
  const text = (s: string) => ({
    kind: 'text' as const,
    name: `${s}.txt`,
    mime: 'text/plain',
    bytes: Buffer.from(s),
    text: s,
  });

  it('discard deletes one no message refers to, never one a message refers to', async () => {
    const store = tmp.open();
    const s = store.sessions.create('s');
    const sent = await store.attachments.add(text('sent'));
    const unsent = await store.attachments.add(text('unsent'));
    store.messages.append(s.id, [{ role: 'user', content: 'x', meta: { attachments: [sent] } }]);
    expect(store.attachments.discard(sent.id)).toBe(false);
    expect(store.attachments.text(sent.id)).toBe('sent');
    expect(store.attachments.discard(unsent.id)).toBe(true);
    expect(store.attachments.get(unsent.id)).toBeNull();
    expect(store.attachments.discard('nope')).toBe(false);
  });

  it('the start-up sweep drops unreferenced ones older than the cut-off, across a reopen of the file', async () => {
    let clock = 1_000_000;
    const open = () => tmp.open({ now: () => clock });
    const first = open();
    const s = first.sessions.create('s');
    const sent = await first.attachments.add(text('sent'));
    const abandoned = await first.attachments.add(text('abandoned'));
    const again = await first.attachments.add(text('again'));
    first.messages.append(s.id, [{ role: 'user', content: 'x', meta: { attachments: [sent] } }]);
    clock += 2 * 86_400_000;
    // Uploaded again today: its age restarts.
    expect((await first.attachments.add(text('again'))).id).toBe(again.id);
    const fresh = await first.attachments.add(text('fresh'));
    first.close();

    const store = open();
    expect(store.attachments.dropUnreferenced(clock - 86_400_000)).toBe(1);
    expect(store.attachments.get(abandoned.id)).toBeNull();
    expect(store.attachments.text(sent.id)).toBe('sent');
    expect(store.attachments.get(again.id)).not.toBeNull();
    expect(store.attachments.get(fresh.id)).not.toBeNull();
    const db = new Database(store.file, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM attachments').get()).toEqual({ n: 3 });
    db.close();
  });

  it('keeps an image thumbnail beside the image, and gives an old row the thumbnail of a later upload', async () => {
    const store = tmp.open();
    const image = { kind: 'image' as const, name: 'a.png', mime: 'image/png', bytes: png(7), width: 800, height: 600 };
    const a = await store.attachments.add(image);
    expect(store.attachments.thumb(a.id)).toBeNull();
    const thumb = new Uint8Array([0xff, 0xd8, 0xff, 1, 2, 3]);
    expect((await store.attachments.add({ ...image, thumb: { bytes: thumb, mime: 'image/jpeg' } })).id).toBe(a.id);
    const got = store.attachments.thumb(a.id)!;
    expect(got.mime).toBe('image/jpeg');
    expect(Buffer.compare(got.bytes, Buffer.from(thumb))).toBe(0);
  });
});
