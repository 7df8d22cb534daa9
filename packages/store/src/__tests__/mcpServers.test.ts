import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../types';
import { fakeEncryptor, useTempDir } from './helpers';

const tmp = useTempDir();
const TOKEN = 'ghp_secretTOKEN_0123456789';

const rawBytes = (file: string): string =>
  ['', '-wal']
    .map((s) => {
      try {
        return readFileSync(file + s).toString('latin1');
      } catch {
        return '';
      }
    })
    .join('');

describe('MCP servers', () => {
  it('seals env values and headers like API keys and lists only their names', () => {
    const store = tmp.open({ encryptor: fakeEncryptor() });
    const s = store.mcpServers.upsert({
      name: 'github',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', 'server-github'],
      env: { GITHUB_TOKEN: TOKEN },
    });
    const h = store.mcpServers.upsert({
      name: 'remote',
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(s).toMatchObject({ envNames: ['GITHUB_TOKEN'], enabled: true, startup: 'lazy', autoApprove: false });
    expect(h.headerNames).toEqual(['Authorization']);
    expect(JSON.stringify(store.mcpServers.list())).not.toContain(TOKEN);
    expect(rawBytes(store.file)).not.toContain(TOKEN);
    expect(store.mcpServers.secrets(s.id).env).toEqual({ GITHUB_TOKEN: TOKEN });
    expect(store.mcpServers.secrets(h.id).headers).toEqual({ Authorization: `Bearer ${TOKEN}` });
  });

  it('keeps a stored value for a null, drops unlisted names, keeps all when env is omitted', () => {
    const store = tmp.open({ encryptor: fakeEncryptor() });
    const s = store.mcpServers.upsert({ name: 'a', transport: 'stdio', command: 'x', env: { A: '1', B: '2' } });
    store.mcpServers.upsert({ id: s.id, name: 'a', transport: 'stdio', command: 'y', enabled: false });
    expect(store.mcpServers.secrets(s.id).env).toEqual({ A: '1', B: '2' });
    const edited = store.mcpServers.upsert({
      id: s.id,
      name: 'a',
      transport: 'stdio',
      command: 'y',
      env: { A: null, C: '3' },
    });
    expect(store.mcpServers.secrets(s.id).env).toEqual({ A: '1', C: '3' });
    expect(edited).toMatchObject({ envNames: ['A', 'C'], enabled: false, command: 'y' });
  });

  it('refuses a duplicate name, a missing command and secrets without secure storage', () => {
    const store = tmp.open();
    store.mcpServers.upsert({ name: 'fs', transport: 'stdio', command: 'x' });
    expect(() => store.mcpServers.upsert({ name: 'FS', transport: 'stdio', command: 'y' })).toThrow(/already exists/);
    expect(() => store.mcpServers.upsert({ name: 'b', transport: 'stdio', command: ' ' })).toThrow(
      /command is required/,
    );
    expect(() => store.mcpServers.upsert({ name: 'c', transport: 'stdio', command: 'x', env: { T: TOKEN } })).toThrow(
      StoreError,
    );
    expect(store.mcpServers.list().map((s) => s.name)).toEqual(['fs']);
  });

  it('removes a server; an unknown id is not_found', () => {
    const store = tmp.open();
    const s = store.mcpServers.upsert({ name: 'fs', transport: 'stdio', command: 'x' });
    store.mcpServers.remove(s.id);
    expect(store.mcpServers.list()).toEqual([]);
    expect(() => store.mcpServers.remove(s.id)).toThrow(/does not exist/);
  });

  it("keeps a stdio server's folder and environment allow-list, and pins its tools until it goes", () => {
    const store = tmp.open({ allowPlaintextKeys: true });
    const s = store.mcpServers.upsert({
      name: 'time',
      transport: 'stdio',
      command: 'python3',
      args: ['-m', 'mcp_time_srv'],
      cwd: '~/servers/time',
      envAllow: ['TZ_DB', 'TZ_DB'],
    });
    expect(s).toMatchObject({ cwd: '~/servers/time', envAllow: ['TZ_DB'] });
    // An edit that leaves them out keeps them; null gives the neutral folder back.
    expect(store.mcpServers.upsert({ id: s.id, name: 'time', transport: 'stdio', command: 'python3' })).toMatchObject({
      cwd: '~/servers/time',
      envAllow: ['TZ_DB'],
    });
    expect(
      store.mcpServers.upsert({ id: s.id, name: 'time', transport: 'stdio', command: 'python3', cwd: null }).cwd,
    ).toBe(null);
    expect(store.mcpServers.pins(s.id)).toEqual([]);
    store.mcpServers.pin(s.id, [{ tool: 'now', hash: 'a1', description: 'The time' }]);
    store.mcpServers.pin(s.id, [{ tool: 'now', hash: 'b2', description: 'The time, changed' }]);
    expect(store.mcpServers.pins(s.id)).toMatchObject([{ tool: 'now', hash: 'b2', description: 'The time, changed' }]);
    expect(() => store.mcpServers.pin('nope', [])).toThrow(/does not exist/);
    store.mcpServers.remove(s.id);
    expect(store.mcpServers.pins(s.id)).toEqual([]);
  });
});
