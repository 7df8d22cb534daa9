import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../index';

let llm: FakeLlm | null = null;
afterEach(async () => {
  await llm?.close();
  llm = null;
});

const hrMs = (): number => {
  const [s, ns] = process.hrtime();
  return s * 1000 + ns / 1e6;
};

describe('arrival stamp on the machine-wide monotonic clock', () => {
  it('places a request from another process between its send and its answer', async () => {
    llm = await startFakeLlm({ defaultReply: { content: 'ok' } });
    // Another process stamps its send on its own process.hrtime, as the runtime bench's host does.
    const script = `
      const [s, ns] = process.hrtime();
      const sentAt = s * 1000 + ns / 1e6;
      const res = await fetch(process.argv[1] + '/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }] }),
      });
      await res.text();
      console.log(JSON.stringify({ sentAt, status: res.status }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, llm.url]);
    const answeredBy = hrMs();
    const child = JSON.parse(stdout) as { sentAt: number; status: number };
    expect(child.status).toBe(200);
    const [rec] = llm.chatRequests();
    expect(rec!.receivedAtHrMs).toBeGreaterThanOrEqual(child.sentAt);
    expect(rec!.receivedAtHrMs).toBeLessThanOrEqual(answeredBy);
  });
});
