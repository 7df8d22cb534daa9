// Issue 25: the longest stall of the request loop while the runtime reads a 1 MB file of one
// repeated character in one session and takes a 0.95 MB paste of one in another. A real server
// process (`tsx apps/server/src/cli.ts`, model gpt-4o so the o200k tokenizer counts), fake-llm over
// HTTP, and a third session asked chat.state in a loop: the longest round trip is the stall the
// user feels (a click, a Stop, an approval waits that long). THREADLINE_BENCH_ROOT runs another
// checkout's server (e.g. main's, for the figure before a change).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchRoot, killGroup, startFakeLlm, startServer } from './benchServer';

export interface StallFigures {
  /** The longest chat.state round trip while the loads ran (ms). */
  longestMs: number;
  /** chat.state calls made meanwhile. */
  probes: number;
  /** From the two sends to both sessions idle (ms). */
  loadsMs: number;
  root: string;
}

export async function measureStall(): Promise<StallFigures> {
  const root = benchRoot();
  const temp = mkdtempSync(join(tmpdir(), 'tl-stall-'));
  // fake-llm in a process of its own: it counts the 0.95 MB request with plain js-tiktoken, which
  // takes seconds; in this process it would stall the probe loop, not the server's.
  const fake = await startFakeLlm(root, join(temp, 'rules.json'), [
    {
      match: { lastUserIncludes: 'READ BIG' },
      reply: { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] },
    },
  ]);
  const server = await startServer(root, fake.url, temp).catch((err: unknown) => {
    killGroup(fake.child);
    throw err;
  });
  try {
    const { rpc } = server;
    const folder = join(temp, 'folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'big.txt'), 'x'.repeat(1_000_000));
    const [reader, paster, third] = await Promise.all(
      ['reads', 'pastes', 'third'].map((title) => rpc<{ id: string }>('sessions.create', { title })),
    );
    await rpc('sessions.update', { id: reader!.id, workingFolder: folder });
    // Warm: the tokenizer loaded, the routes compiled, before anything is measured.
    await rpc('chat.send', { sessionId: third!.id, text: 'hello' });
    /** chat.state, asked again when a kept-alive connection was reset (a server blocked for long). */
    const state = async (id: string): Promise<{ busy: boolean }> => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await rpc<{ busy: boolean }>('chat.state', { sessionId: id });
        } catch (err) {
          if (attempt >= 3 || !String((err as Error).cause ?? err).match(/ECONNRESET|other side closed|UND_ERR/))
            throw err;
        }
      }
    };
    const busy = async (id: string) => (await state(id)).busy;
    while (await busy(third!.id));

    const t0 = performance.now();
    let done = false;
    const loads = (async () => {
      await Promise.all([
        rpc('chat.send', { sessionId: reader!.id, text: 'READ BIG file' }),
        rpc('chat.send', { sessionId: paster!.id, text: 'y'.repeat(950_000) }),
      ]);
      while ((await busy(reader!.id)) || (await busy(paster!.id)));
      done = true;
    })();
    let longestMs = 0;
    let probes = 0;
    while (!done) {
      const s = performance.now();
      await state(third!.id);
      longestMs = Math.max(longestMs, performance.now() - s);
      probes++;
    }
    await loads;
    return { longestMs, probes, loadsMs: performance.now() - t0, root };
  } finally {
    await server.close();
    killGroup(fake.child);
    rmSync(temp, { recursive: true, force: true });
  }
}

export function printStall(f: StallFigures): void {
  console.log(`## Request loop under load (${f.root})`);
  console.log('1 MB one-character file read (read_file) in one session, 0.95 MB one-character paste in another;');
  console.log('a third session asks chat.state in a loop.');
  console.log(`longest stall of the request loop: ${f.longestMs.toFixed(0)} ms (goal < 100 ms)`);
  console.log(`chat.state answers meanwhile: ${f.probes}; loads done in ${(f.loadsMs / 1000).toFixed(1)} s`);
}
