// The runtime bench's host: a fresh process running the real app runtime (createAppApi over a real
// store file), as the desktop or browser-mode host does. It opens the session the way the UI does,
// sends messages one by one and reports, over the IPC channel, when each send started (on the
// machine's monotonic clock, which the fake provider in the parent process stamps requests with)
// and its RSS after a full GC with the session open. Its stdout is the parent's stderr.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { openStore } from '@threadline/store';
import { createAppApi } from '../src/index';

export const HostConfigSchema = z.object({
  file: z.string(),
  sessionId: z.string(),
  sends: z.number().int().positive(),
  dir: z.string(),
});
export type HostConfig = z.infer<typeof HostConfigSchema>;

export interface HostReport {
  /** process.hrtime in ms just before each chat.send. */
  sendTimes: number[];
  rssMb: number;
  heapMb: number;
}

const hrMs = (): number => {
  const [s, ns] = process.hrtime();
  return s * 1000 + ns / 1e6;
};

/** RSS after a full GC, logged per phase (to the parent's stderr) so the figure can be read apart. */
function phase(label: string): { rssMb: number; heapMb: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const mem = process.memoryUsage();
  const out = { rssMb: mem.rss / 1024 / 1024, heapMb: mem.heapUsed / 1024 / 1024 };
  console.log(`runtime host: ${label}: RSS ${out.rssMb.toFixed(0)} MB, JS heap ${out.heapMb.toFixed(0)} MB`);
  return out;
}

async function main(): Promise<void> {
  const cfg = HostConfigSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  const store = openStore({ file: cfg.file, env: {}, allowPlaintextKeys: true });
  const home = path.join(cfg.dir, 'home');
  mkdirSync(home, { recursive: true });
  const api = createAppApi({
    store,
    dataDir: path.join(cfg.dir, 'data'),
    homeDir: home,
    cwd: cfg.dir,
    loginShell: false,
    emit: () => {},
  });
  const { sessionId } = cfg;
  phase('runtime started');
  // What the renderer asks for when the user opens the session.
  await api['messages.list']({ sessionId });
  await api['context.usage']({ sessionId });
  phase('session opened (messages.list, context.usage)');
  const sendTimes: number[] = [];
  for (let i = 0; i < cfg.sends; i++) {
    const t0 = hrMs();
    await api['chat.send']({ sessionId, text: `Step ${i}: run the tests again and tell me what fails.` });
    sendTimes.push(t0);
    await api.idle(sessionId);
    await api['context.usage']({ sessionId });
    if (i === 0) phase('after the first send');
  }
  const report: HostReport = { sendTimes, ...phase(`after ${cfg.sends} sends`) };
  await new Promise<void>((resolve) => process.send!(report, () => resolve()));
  await api.dispose();
  store.close();
  process.disconnect();
}

if (process.send) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
