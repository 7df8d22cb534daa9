// Issue 35: attachments have budgets. The server is a real process, the PDFs are built here (a
// 150,000-page document and a flate bomb), sent through attachments.add over HTTP as a renderer
// would. While a big one is read, another session's small PDF and every route answer; the big
// one ends within its limits with what was read kept and the limit said; the bomb ends at its
// memory limit with the server's memory bounded.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '@threadline/fake-llm';
import { ATTACHMENT_LIMITS, type AttachmentAdded, type ChatState } from '@threadline/protocol';
import { flateBombPdf, manyPagesPdf, onePagePdf } from '@threadline/fake-llm/hostilePdfs';
import { peakRssMb } from './peakRss';
import { startServerProcess, type ServerProcess } from './serverProcess';

const temp = realpathSync(mkdtempSync(join(tmpdir(), 'tl-hostile-pdf-')));
let llm: FakeLlm | null = null;
let server: ServerProcess | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});
afterAll(async () => {
  await llm?.close();
  rmSync(temp, { recursive: true, force: true });
});

async function start(name: string): Promise<ServerProcess> {
  llm ??= await startFakeLlm({ defaultReply: { content: 'ok' } });
  server = await startServerProcess({ llmUrl: llm.url, dir: join(temp, name) });
  return server;
}

const attach = (s: ServerProcess, name: string, bytes: Buffer) =>
  s.rpc<AttachmentAdded>('attachments.add', { name, mime: 'application/pdf', data: bytes.toString('base64') });

describe('attachments within their limits', () => {
  it("a 150,000-page PDF keeps what was read by its time limit; another session's small PDF and the routes answer meanwhile", async () => {
    const s = await start('many');
    const big = manyPagesPdf(150_000);
    expect(big.length).toBeLessThan(ATTACHMENT_LIMITS.fileMaxBytes);
    const session = await s.call<{ id: string }>('sessions.create', {});
    const reading = attach(s, 'huge.pdf', big);
    // Another call meanwhile: its own worker, not queued behind the big one.
    const small = await attach(s, 'small.pdf', onePagePdf('Small and quick'));
    expect(small).toMatchObject({ ok: true, data: { pages: 1 } });
    expect(small.data.cut).toBeUndefined();
    expect((await s.call<ChatState>('chat.state', { sessionId: session.id })).busy).toBe(false);
    const got = await reading;
    expect(got.ok).toBe(true);
    // pdf.js reads a page of this document in ~0.1 s: the time limit stops it long before the end.
    expect(got.data.cut).toMatchObject({ limit: 'time' });
    expect(got.data.cut!.keptPages).toBeLessThan(150_000);
    const text = await s.call<{ text: string }>('attachments.get', { id: got.data.id, limit: 1_000_000 });
    expect(text.text).toMatch(
      /pages of the PDF huge\.pdf were read: reading stopped at its time limit of 30 s\.\]$|No page of the PDF huge\.pdf could be read: reading stopped at its time limit of 30 s\.\]$/,
    );
  }, 180_000);

  it('a flate bomb ends at its memory limit, the server memory bounded, the next PDF read as usual', async () => {
    const s = await start('bomb');
    const bomb = await flateBombPdf(300);
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const got = await attach(s, 'bomb.pdf', bomb);
    expect(got.ok).toBe(true);
    expect(got.data.cut).toEqual({ limit: 'memory', keptPages: 0, totalPages: 1 });
    const text = await s.call<{ text: string }>('attachments.get', { id: got.data.id });
    expect(text.text).toBe(
      '[No page of the PDF bomb.pdf could be read: reading stopped at its memory limit of 256 MB.]',
    );
    // The 300 MB of operators never lived in the server at once: its peak stays far below them
    // and the worker's budget (before the limits, this bomb took the process to 1.2 GB).
    expect(peakRssMb(s.child.pid!)).toBeLessThan(900);
    const after = await attach(s, 'after.pdf', onePagePdf('Still reading'));
    expect(after).toMatchObject({ ok: true, data: { pages: 1 } });
  }, 180_000);
});
