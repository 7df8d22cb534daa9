// The meter bench's host (bench/meter.ts): a fresh process running the real app runtime over a
// store file that holds the largest transcript. It opens the session as the renderer does
// (messages.list, then context.usage) and reports how long that took, from before the runtime's
// modules were imported to the first meter reading: loading the tokenizer (its code and its
// vocabulary) and counting what has no stored count are part of it. Its stdout is the parent's stderr.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { openStore } from '@threadline/store';

export const MeterHostConfigSchema = z.object({ file: z.string(), sessionId: z.string(), dir: z.string() });
export type MeterHostConfig = z.infer<typeof MeterHostConfigSchema>;

export interface MeterHostReport {
  /** From before createAppApi to the first context.usage answer (ms, wall). */
  ms: number;
  /** The same span in CPU time of this process (ms; the pool's workers included). */
  cpuMs: number;
  /** The meter's total (provider tokens). */
  total: number;
}

async function main(): Promise<void> {
  const cfg = MeterHostConfigSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  const store = openStore({ file: cfg.file, env: {}, allowPlaintextKeys: true });
  const home = path.join(cfg.dir, 'home');
  mkdirSync(home, { recursive: true });
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const { createAppApi } = await import('../src/index');
  const api = createAppApi({
    store,
    dataDir: path.join(cfg.dir, 'data'),
    homeDir: home,
    cwd: cfg.dir,
    loginShell: false,
    emit: () => {},
  });
  await api['messages.list']({ sessionId: cfg.sessionId });
  const usage = await api['context.usage']({ sessionId: cfg.sessionId });
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const report: MeterHostReport = { ms, cpuMs: (c.user + c.system) / 1000, total: usage.total };
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
