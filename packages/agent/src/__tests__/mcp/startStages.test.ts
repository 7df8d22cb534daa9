import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '@threadline/store';
import { McpManager } from '../../mcp/manager';
import { StderrTail } from '../../mcp/connection';
import { machineNetworkEnv } from '../../mcp/networkEnv';
import { isPackageRunner } from '../../mcp/startStages';

// Issue 37 §2: a stdio server's start says its stages (downloading the package), a failure quotes
// what the server wrote (not the package runner's progress), the machine's certificate and proxy
// variables reach it, and a package runner's start is given time for a download.

let dir: string;
let store: Store;
let mcp: McpManager;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tl-mcp-stages-'));
  store = openStore({ file: path.join(dir, 'db.sqlite'), env: {}, allowPlaintextKeys: true });
  mcp = new McpManager({ store, dataDir: path.join(dir, 'data'), startTimeoutMs: 1000, downloadTimeoutMs: 10_000 });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await mcp.dispose();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A stand-in `npx` (a real child process): it logs fetches the way npm does at its `http` level,
 * says which of the variables it got, writes an error of its own, and never answers.
 */
function fakeNpx(): string {
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const file = path.join(bin, 'npx');
  writeFileSync(
    file,
    `#!${process.execPath}
const say = (l) => process.stderr.write(l + '\\n');
say('npm http fetch GET 200 https://registry.npmjs.org/some-mcp-server 512ms (cache miss)');
say('npm http fetch GET 200 https://registry.npmjs.org/some-mcp-server/-/some-mcp-server-1.0.0.tgz 40ms (cache miss)');
for (const k of ['npm_config_loglevel', 'NODE_EXTRA_CA_CERTS', 'HTTP_PROXY', 'HTTPS_PROXY'])
  say(k + '=' + (process.env[k] ?? '(unset)'));
say('Error: unable to get local issuer certificate');
setInterval(() => {}, 1000);
`,
  );
  chmodSync(file, 0o755);
  return file;
}

describe('the start of a stdio server', () => {
  it('says it is downloading, and a failure quotes the server, not npm’s progress', async () => {
    vi.stubEnv('NODE_EXTRA_CA_CERTS', '/etc/company-ca.pem');
    vi.stubEnv('HTTP_PROXY', 'http://proxy.example:3128');
    vi.stubEnv('HTTPS_PROXY', 'http://me:s3cret@proxy.example:3128');
    const s = store.mcpServers.upsert({ name: 'slow', transport: 'stdio', command: fakeNpx(), args: ['-y', 'x'] });
    const started = mcp.start(s.id);
    await vi.waitFor(() => expect(mcp.list()[0]).toMatchObject({ status: 'starting', stage: 'downloading' }), {
      timeout: 9000,
    });
    await started;
    const info = mcp.list()[0]!;
    expect(info.status).toBe('error');
    const [sentence, ...tail] = info.error!.split('\n');
    expect(sentence).toBe(
      'The server "slow" was still downloading its package after 10 s (its last words, if any, are below).',
    );
    expect(tail).toEqual([
      'npm_config_loglevel=http',
      'NODE_EXTRA_CA_CERTS=/etc/company-ca.pem',
      'HTTP_PROXY=http://proxy.example:3128',
      'HTTPS_PROXY=(unset)',
      'Error: unable to get local issuer certificate',
    ]);
  });
});

describe('pieces', () => {
  it('the tail keeps what the server wrote, across chunks, and hears a runner’s downloads', () => {
    let downloads = 0;
    const tail = new StderrTail(() => downloads++);
    tail.push(
      'npm http fetch GET 200 https://registry.npmjs.org/a 1ms\nnpm http cache a@https://r/a.tgz 0ms (cache hit)\nstarting up',
    );
    tail.push(
      '\n  Downloading cpython-3.12 (30.1MiB)\nInstalled 12 packages in 40ms\nError: boom\nnpm notice\nnpm notice New major version of npm available!',
    );
    expect(tail.text()).toBe('starting up\nError: boom');
    expect(downloads).toBe(3);
  });

  it('the machine’s certificate and proxy variables, without a password', () => {
    expect(
      machineNetworkEnv({
        SSL_CERT_FILE: '/etc/ssl/ca.pem',
        no_proxy: 'localhost',
        https_proxy: 'http://u:p@proxy:1',
        OPENAI_API_KEY: 'sk-no',
      }),
    ).toEqual({ SSL_CERT_FILE: '/etc/ssl/ca.pem', no_proxy: 'localhost' });
  });

  it('package runners are told by their name', () => {
    for (const c of ['npx', '/usr/bin/npx', 'C:\\\\node\\\\npx.cmd', 'uvx', 'pnpm'])
      expect(isPackageRunner(c), c).toBe(true);
    for (const c of ['node', 'python3', '/opt/npx-tools/server']) expect(isPackageRunner(c), c).toBe(false);
  });
});
