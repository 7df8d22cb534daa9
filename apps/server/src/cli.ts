// `pnpm serve [--port N] [--token T] [--data-dir DIR] [--fresh-database]`: browser mode. Starts the runtime on
// 127.0.0.1 and prints one line: `Threadline is running at http://127.0.0.1:<port>/?token=<token>`. The token
// (unless --token) and the port (unless --port) are kept in the data folder: a restart gives the same address.
import { parseArgs } from 'node:util';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { isDamagedDatabase } from '@threadline/agent';
import { startBrowserMode } from './browserMode';
import { TokenSchema } from './keptAddress';
import { errorMessage } from '@threadline/protocol';

function fail(message: string): never {
  process.stderr.write(`threadline serve: ${message}\n`);
  process.exit(2);
}

let values: {
  port?: string;
  token?: string;
  'data-dir'?: string;
  'static-dir'?: string;
  'fresh-database'?: boolean;
};
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string' },
      token: { type: 'string' },
      'data-dir': { type: 'string' },
      'static-dir': { type: 'string' },
      // A damaged database is kept under a dated name beside it and a new one opened.
      'fresh-database': { type: 'boolean' },
    },
    strict: true,
  }));
} catch (err) {
  fail(errorMessage(err));
}

const port = values.port === undefined ? undefined : Number(values.port);
if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
  fail(`--port must be an integer 0–65535, got "${values.port}"`);
if (values.token !== undefined && !TokenSchema.safeParse(values.token).success)
  fail('--token must be 16 to 200 letters, digits, "-" or "_" (it is the key to an agent that runs commands).');

const here = dirname(fileURLToPath(import.meta.url));
const staticDir = resolve(values['static-dir'] ?? resolve(here, '../../desktop/out/web'));
if (!existsSync(resolve(staticDir, 'index.html'))) {
  process.stderr.write(`threadline serve: no renderer build at ${staticDir}; the API still runs.\n`);
}

try {
  const running = await startBrowserMode({
    port,
    token: values.token,
    dataDir: values['data-dir'],
    staticDir,
    env: process.env,
    freshDatabase: values['fresh-database'] === true,
  });
  if (running.keptDamaged)
    process.stderr.write(
      `threadline serve: the damaged database was kept as ${running.keptDamaged}; a new one was opened.\n`,
    );
  process.stdout.write(`Threadline is running at ${running.url}\n`);
  // It started anyway (the app works without it): say what did not apply.
  for (const w of running.startupWarnings)
    process.stderr.write(`threadline serve: environment provider not applied: ${w}\n`);
  const stop = () =>
    void running.close().then(
      () => process.exit(0),
      (err: unknown) => fail(`could not close cleanly: ${errorMessage(err)}`),
    );
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (err) {
  fail(startFailure(err));
}

/** One sentence for what a user can act on; anything else keeps its own message. */
function startFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return `port ${port} is already in use on 127.0.0.1; choose another with --port N, or leave --port out to use a free one.`;
  if (code === 'EACCES')
    return `port ${port} needs privileges this user does not have; choose one above 1023 with --port N, or leave --port out.`;
  // The store's sentence (what is wrong with which file), then how to go on without losing it.
  if (isDamagedDatabase(err) && err.keepAs)
    return `${err.message} Start again with --fresh-database to keep it as ${err.keepAs} and open a new one.`;
  return errorMessage(err);
}
