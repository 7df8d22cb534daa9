// `pnpm start`: the desktop app (electron-vite build + Electron). Electron's binary is fetched on
// first use, once, with Electron's own install script and its progress bar, unless
// ELECTRON_SKIP_BINARY_DOWNLOAD is set. Where there is no binary after that, one paragraph says
// what is missing and how to get it: never a stack trace, and nothing after it. Run directly the
// exit code is then 1; as `pnpm start` (a package script) it is 0, because pnpm follows any
// non-zero exit of a script with its own " ELIFECYCLE  Command failed" line, which would bury the
// paragraph (pnpm has no setting to leave it out but its global --silent).
// `pnpm start --check` only says whether the app can start here (exit 1 when it cannot).
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

/** One paragraph on stderr, then the end: the exit code as the header says. */
function refuse(paragraph: string): never {
  process.stderr.write(`threadline: ${paragraph}\n`);
  process.exit(values.check || env.npm_lifecycle_event !== 'start' ? 1 : 0);
}

if (!binary.ok) {
  const installer = relative(process.cwd(), join(desktopDir, 'node_modules', 'electron', 'install.js'));
  const why = skip
    ? 'ELECTRON_SKIP_BINARY_DOWNLOAD is set'
    : pkg
      ? `${binary.reason}, and the download from ${env.ELECTRON_MIRROR ?? 'github.com'} failed`
      : binary.reason;
  refuse(
    `Electron's binary is not installed (${why}), so the desktop app cannot start. ` +
      `Get it by running \`pnpm start\` again where github.com (or your ELECTRON_MIRROR) is reachable, ` +
      `without ELECTRON_SKIP_BINARY_DOWNLOAD, or with \`node ${installer}\`; ` +
      `meanwhile \`pnpm serve\` runs the same app in your browser.`,
  );
}

// On Linux a window needs an X or Wayland display; without one Electron stops with a stack of its own.
if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY)
  refuse(
    'there is no display here (DISPLAY and WAYLAND_DISPLAY are not set), so the desktop app cannot open ' +
      'its window. Start it from a graphical session, or run `pnpm serve`: the same app in your browser ' +
      '(from another machine through `ssh -L <port>:127.0.0.1:<port>`).',
  );

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
