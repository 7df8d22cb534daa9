#!/usr/bin/env node
// Smoke test of the BUILT main process without an Electron binary: runs
// apps/desktop/out/main/index.js under plain Node with `electron` redirected to
// fake-electron.mjs, then drives it like the renderer would: app:// serves the built renderer
// with the CSP, and an IPC call from the window creates a session in a real SQLite file.
// Usage: pnpm --filter @threadline/desktop build && node e2e/electron/smoke-main.mjs
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const mainFile = join(here, '../../apps/desktop/out/main/index.js');
if (!existsSync(mainFile)) {
  console.error(`not built: ${mainFile} (run pnpm --filter @threadline/desktop build)`);
  process.exit(2);
}

const fake = pathToFileURL(join(here, 'fake-electron.mjs')).href;
register(
  `data:text/javascript,${encodeURIComponent(
    `export async function resolve(specifier, context, next) {
       if (specifier === 'electron') return { url: ${JSON.stringify(fake)}, shortCircuit: true };
       return next(specifier, context);
     }`,
  )}`,
);

const home = mkdtempSync(join(tmpdir(), 'tl-smoke-'));
process.env.FAKE_ELECTRON_HOME = home;
delete process.env.THREADLINE_DATA_DIR;
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

try {
  await import(pathToFileURL(mainFile).href);
  const rec = globalThis.__threadlineFakeElectron;
  for (let i = 0; i < 100 && rec.windows.length === 0 && rec.exits.length === 0; i++)
    await new Promise((r) => setTimeout(r, 50));
  check(rec.errors.length === 0 && rec.exits.length === 0, `started without errors ${JSON.stringify(rec.errors)}`);
  check(rec.windows.length === 1, 'one window');
  const win = rec.windows[0];
  check(win?.loaded === 'app://threadline/index.html', `window loads app:// (${win?.loaded})`);
  const prefs = win?.options.webPreferences ?? {};
  check(
    prefs.contextIsolation === true && prefs.sandbox === true && prefs.nodeIntegration === false,
    'isolated, sandboxed, no node',
  );
  check(existsSync(prefs.preload ?? ''), `preload exists (${prefs.preload})`);
  check(rec.sessionHooks.sort().join() === 'check,device,headers,request', 'session hardened');

  const res = await rec.protocols.get('app')({ url: 'app://threadline/index.html' });
  const html = await res.text();
  check(res.status === 200 && html.includes('<div id="root">'), 'app:// serves the built renderer');
  check(
    !/unsafe-eval/.test(res.headers.get('content-security-policy') ?? 'unsafe-eval'),
    'CSP set, without unsafe-eval',
  );

  const invoke = rec.ipc.get('threadline:invoke');
  const from = {
    sender: { id: win.webContents.id },
    senderFrame: { url: 'app://threadline/index.html', parent: null },
  };
  const created = await invoke(from, 'sessions.create', { title: 'Smoke' });
  check(created.ok === true && created.data.title === 'Smoke', 'IPC sessions.create works');
  check(existsSync(join(home, 'userData', 'threadline.sqlite')), 'threadline.sqlite in userData');
  const foreign = await invoke(
    { ...from, senderFrame: { url: 'https://evil.example/', parent: null } },
    'sessions.list',
    {},
  );
  check(foreign.ok === false && foreign.error.code === 'forbidden', 'foreign sender refused');

  // The preload bundle, evaluated as Electron's sandbox does: a CommonJS script whose only
  // require is 'electron'.
  const exposed = {};
  const sentToMain = [];
  const preloadSource = readFileSync(prefs.preload, 'utf8');
  const sandboxRequire = (id) => {
    if (id !== 'electron') throw new Error(`sandboxed preload required ${id}`);
    return {
      contextBridge: { exposeInMainWorld: (key, value) => (exposed[key] = value) },
      ipcRenderer: {
        invoke: async (...args) => (sentToMain.push(args), { ok: true, data: null }),
        on() {},
        removeListener() {},
      },
    };
  };
  new Function('require', 'module', 'exports', preloadSource)(sandboxRequire, { exports: {} }, {});
  check(Object.keys(exposed).join() === 'threadline', 'preload exposes only window.threadline');
  check(
    Object.keys(exposed.threadline ?? {})
      .sort()
      .join() === 'invoke,onCommand,onEvent,shell',
    'bridge has invoke, onEvent, onCommand, shell',
  );
  await exposed.threadline.invoke('sessions.list', {});
  const unknown = await exposed.threadline.invoke('fs.read', {});
  check(
    sentToMain.length === 1 && sentToMain[0][0] === 'threadline:invoke' && unknown.ok === false,
    'preload checks route names',
  );
} finally {
  rmSync(home, { recursive: true, force: true });
}
console.log(failures.length ? `${failures.length} check(s) failed` : 'smoke: all checks passed');
process.exit(failures.length ? 1 : 0);
