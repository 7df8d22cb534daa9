// `pnpm start`: the desktop app (electron-vite build + Electron). Electron's binary is fetched on
// first use, once, with Electron's own install script and its progress bar, unless
// ELECTRON_SKIP_BINARY_DOWNLOAD is set. Where there is no binary after that, one paragraph says
// what is missing and how to get it, and the exit code is 1: never a stack trace.
// `pnpm start --check` only says whether the app can start here.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { desktopDir, electronPackage, findElectronBinary } from './electronBinary';

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } }, allowPositionals: true });
const env = process.env;
// As Electron's installers read it: set to anything but empty, 0 or false.
const skip = !['', '0', 'false'].includes((env.ELECTRON_SKIP_BINARY_DOWNLOAD ?? '').toLowerCase());

let binary = findElectronBinary(env);
const pkg = electronPackage();
if (!binary.ok && pkg && !skip) {
  process.stdout.write(`Electron ${pkg.version} is not downloaded yet; fetching it once (about 100 MB)…\n`);
  // Electron's install script prints its error's stack; this preload keeps the first line only.
  spawnSync(
    process.execPath,
    ['--require', join(import.meta.dirname, 'oneLineErrors.cjs'), join(pkg.dir, 'install.js')],
    {
      stdio: 'inherit',
      env,
    },
  );
  binary = findElectronBinary(env);
}

if (!binary.ok) {
  const installer = relative(process.cwd(), join(desktopDir, 'node_modules', 'electron', 'install.js'));
  const why = skip
    ? 'ELECTRON_SKIP_BINARY_DOWNLOAD is set'
    : pkg
      ? `${binary.reason}, and the download from ${env.ELECTRON_MIRROR ?? 'github.com'} failed`
      : binary.reason;
  process.stderr.write(
    `threadline: Electron's binary is not installed (${why}), so the desktop app cannot start. ` +
      `Get it by running \`pnpm start\` again where github.com (or your ELECTRON_MIRROR) is reachable, ` +
      `without ELECTRON_SKIP_BINARY_DOWNLOAD, or with \`node ${installer}\`; ` +
      `meanwhile \`pnpm serve\` runs the same app in your browser.\n`,
  );
  process.exit(1);
}

if (values.check) {
  process.stdout.write(`electron: ${binary.value}\n`);
  process.exit(0);
}

// electron-vite finds Electron through ELECTRON_EXEC_PATH first (ELECTRON_OVERRIDE_DIST_PATH too).
const evPackage = createRequire(join(desktopDir, 'package.json')).resolve('electron-vite/package.json');
const { bin } = JSON.parse(readFileSync(evPackage, 'utf8')) as { bin: Record<string, string> };
const cli = join(dirname(evPackage), bin['electron-vite']!);
const child = spawn(process.execPath, [cli, 'preview'], {
  cwd: desktopDir,
  stdio: 'inherit',
  env: { ...env, ELECTRON_EXEC_PATH: binary.value },
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
