// Attachments end to end: attachments.add → chat.send → what fake-llm received over real HTTP.
import { createHash } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { parseNotice, type AttachmentRef } from '@threadline/protocol';
import { pdfPagesInWorker, textInWorker } from '../attachments/extract';
import { endIdleWorkers } from '../worker/run';
import { lastIsTool, startHarness, type Harness } from './harness';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** A real 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** A one-page PDF whose page shows `text` (Helvetica), with a correct cross-reference table. */
function pdfWith(text: string): Buffer {
  const stream = `BT /F1 18 Tf 40 100 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const add = (hh: Harness, name: string, mime: string, bytes: Buffer, size?: { width: number; height: number }) =>
  hh.api['attachments.add']({ name, mime, data: bytes.toString('base64'), ...size });

async function send(hh: Harness, text: string, ids: string[], sessionId = hh.sessionId): Promise<void> {
  await hh.api['chat.send']({ sessionId, text, attachments: ids });
  await hh.api.idle(sessionId);
}

const userContent = (hh: Harness, i = -1): unknown => {
  const body = hh.llm.chatRequests().at(i)!.body as { messages: { role: string; content: unknown }[] };
  return body.messages.findLast((m) => m.role === 'user')!.content;
};

describe('image attachments', () => {
  it('reach the provider as an image_url part, stored once and referenced by id', async () => {
    h = await startHarness({ model: 'gpt-4o' });
    const ref = await add(h, 'screen.png', 'image/png', PNG, { width: 1, height: 1 });
    const again = await add(h, 'copy.png', 'image/png', PNG, { width: 1, height: 1 });
    expect(again.id).toBe(ref.id);
    await send(h, 'what is on this screen?', [ref.id]);
    const rec = h.llm.chatRequests().at(-1)!;
    expect(rec.images).toEqual([{ message: 1, mime: 'image/png', bytes: PNG.length, sha256: sha(PNG) }]);
    expect(userContent(h)).toEqual([
      { type: 'text', text: 'what is on this screen?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
    ]);
    const user = h.history().find((m) => m.role === 'user')!;
    expect(user.content).toBe('what is on this screen?');
    expect(user.meta?.attachments).toEqual([ref]);
    // The full-size route answers the bytes as a data URL.
    const got = await h.api['attachments.get']({ id: ref.id });
    expect(got.dataUrl).toBe(`data:image/png;base64,${PNG.toString('base64')}`);
    // The next turn sends the image again (it is part of the conversation), still from one row.
    await h.turn('and the colour?');
    expect(h.llm.chatRequests().at(-1)!.images).toHaveLength(1);
  });

  it('refuses bytes that are no image, text or PDF', async () => {
    h = await startHarness();
    await expect(add(h, 'blob.bin', 'application/octet-stream', Buffer.from([0, 1, 2, 0, 255]))).rejects.toThrow(
      /neither text, a PDF nor an image/,
    );
  });

  it('a model known to read no images gets a sentence, and no request is made', async () => {
    h = await startHarness({ model: 'deepseek-chat' });
    const ref = await add(h, 'screen.png', 'image/png', PNG, { width: 1, height: 1 });
    await send(h, 'look', [ref.id]);
    expect(h.llm.chatRequests()).toHaveLength(0);
    const notice = h.history().findLast((m) => m.kind === 'error_notice')!;
    const parsed = parseNotice(notice.content ?? '');
    expect(parsed).toMatchObject({
      type: 'error',
      payload: { type: 'provider_error', kind: 'no_vision', model: 'deepseek-chat' },
    });
  });

  it("an unknown model that refuses the image: the provider's 400 becomes the same sentence", async () => {
    h = await startHarness({ model: 'text-1', llm: { models: ['text-1'], noVisionModels: ['text-1'] } });
    const ref = await add(h, 'screen.png', 'image/png', PNG, { width: 1, height: 1 });
    await send(h, 'look', [ref.id]);
    expect(h.llm.chatRequests().at(-1)!.status).toBe(400);
    const parsed = parseNotice(h.history().findLast((m) => m.kind === 'error_notice')!.content ?? '');
    expect(parsed).toMatchObject({ type: 'error', payload: { kind: 'no_vision', model: 'text-1' } });
  });
});

describe('file attachments', () => {
  it("a text file's content reaches the model inside a block naming the file", async () => {
    h = await startHarness();
    const ref = await add(h, 'notes.md', 'text/markdown', Buffer.from('# Plan\nship on friday\n'));
    expect(ref).toMatchObject({ kind: 'text', name: 'notes.md', chars: 22 });
    await send(h, 'summarize', [ref.id]);
    const content = userContent(h) as string;
    expect(content).toBe(
      `summarize\n\n<attachment name="notes.md" id="${ref.id}" chars="22">\n# Plan\nship on friday\n\n</attachment>`,
    );
  });

  it('a large file is cut with a marker, and read_tool_output pages through the rest by its id', async () => {
    h = await startHarness({ model: 'gpt-4o' });
    const lines = Array.from({ length: 12_000 }, (_, i) => `line ${i}`).join('\n');
    const ref = await add(h, 'big.log', 'text/plain', Buffer.from(lines));
    h.llm.setRules([
      {
        match: { lastUserIncludes: 'tail' },
        reply: (req) =>
          lastIsTool(req)
            ? { content: 'read it' }
            : { toolCalls: [{ name: 'read_tool_output', arguments: { id: ref.id, offset: 60_000, limit: 100 } }] },
      },
    ]);
    await send(h, 'show me the tail', [ref.id]);
    const first = h.llm.chatRequests()[0]!.body as { messages: { role: string; content: string }[] };
    const content = first.messages.findLast((m) => m.role === 'user')!.content;
    expect(content.length).toBeLessThan(61_000);
    expect(content).toContain(
      `more characters of big.log not shown. Read them with read_tool_output {"id": "${ref.id}", "offset": 60000}`,
    );
    const tool = h.history().find((m) => m.role === 'tool')!;
    expect(tool.content).toContain(lines.slice(60_000, 60_100));
    expect(tool.content).toContain(`of ${lines.length}`);
  });

  it("a PDF's text is extracted with its page", async () => {
    h = await startHarness();
    const ref: AttachmentRef = await add(h, 'report.pdf', 'application/pdf', pdfWith('Quarterly figures are up'));
    expect(ref).toMatchObject({ kind: 'text', mime: 'application/pdf', pages: 1 });
    const untitled = await h.api['sessions.create']({ workingFolder: h.dir });
    await send(h, '', [ref.id], untitled.id);
    const content = userContent(h) as string;
    expect(content).toContain('<attachment name="report.pdf"');
    expect(content).toContain('[page 1]\nQuarterly figures are up');
    // A message of attachments only is titled after the first one.
    expect(h.store.sessions.get(untitled.id)!.title).toBe('report.pdf');
  });
});

describe('reading files off the request thread', () => {
  it('a PDF and a large text file are read by the worker thread, not this one', async () => {
    const pdf = await pdfPagesInWorker(pdfWith('Read in a worker'));
    expect(pdf.pages[0]).toContain('Read in a worker');
    expect(pdf.total).toBe(1);
    expect(pdf.thread).not.toBe(threadId);
    const big = Buffer.from('\uFEFF' + 'row of a large log \u00e9\n'.repeat(20_000));
    const text = await textInWorker(big);
    // Each file in a worker of its own, or one reused once idle: never the request thread.
    expect(text.thread).not.toBe(threadId);
    expect(text.text).toBe('row of a large log \u00e9\n'.repeat(20_000));
    expect((await textInWorker(Buffer.from([0x66, 0x00, 0x67]))).text).toBeNull();
    expect((await textInWorker(Buffer.from([0xc3, 0x28]))).text).toBeNull();
    // Ended, it starts again on the next file.
    await endIdleWorkers();
    expect((await textInWorker(Buffer.from('again'))).text).toBe('again');
  });

  it('a damaged PDF is refused with a sentence, and the worker goes on reading', async () => {
    h = await startHarness();
    await expect(add(h, 'broken.pdf', 'application/pdf', Buffer.from('%PDF-1.4\nnot really'))).rejects.toThrow(
      /Could not read the PDF broken\.pdf/,
    );
    const ok = await add(h, 'fine.pdf', 'application/pdf', pdfWith('Still reading'));
    expect(ok.pages).toBe(1);
  });

  it('a large text file added through the route is whole, with its name', async () => {
    h = await startHarness();
    const body = 'x'.repeat(300 * 1024);
    const ref = await add(h, 'big.txt', 'text/plain', Buffer.from(body));
    expect(ref).toMatchObject({ kind: 'text', chars: body.length });
    expect(h.store.attachments.text(ref.id)).toBe(body);
  });
});

describe('thumbnails and unsent attachments through the routes', () => {
  it('an image keeps the thumbnail it came with; discard deletes it only while no message refers to it', async () => {
    h = await startHarness({ model: 'gpt-4o' });
    const thumb = { mime: 'image/png' as const, data: PNG.toString('base64') };
    const ref = await h.api['attachments.add']({
      name: 'screen.png',
      mime: 'image/png',
      data: PNG.toString('base64'),
      width: 1,
      height: 1,
      thumb,
    });
    expect((await h.api['attachments.get']({ id: ref.id, thumb: true })).dataUrl).toBe(
      `data:image/png;base64,${thumb.data}`,
    );
    await expect(
      h.api['attachments.add']({
        name: 'x.png',
        mime: 'image/png',
        data: PNG.toString('base64'),
        width: 1,
        height: 1,
        thumb: { mime: 'image/png', data: Buffer.from('not an image').toString('base64') },
      }),
    ).rejects.toThrow(/thumbnail of x\.png/);
    const removed = await add(h, 'removed.txt', 'text/plain', Buffer.from('never sent'));
    expect(await h.api['attachments.discard']({ id: removed.id })).toEqual({ deleted: true });
    expect(h.store.attachments.get(removed.id)).toBeNull();
    await send(h, 'look', [ref.id]);
    expect(await h.api['attachments.discard']({ id: ref.id })).toEqual({ deleted: false });
    expect(h.store.attachments.bytes(ref.id)).not.toBeNull();
  });
});
