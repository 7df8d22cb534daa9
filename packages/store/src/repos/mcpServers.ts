// MCP server configurations. Env values and headers are sealed like API keys (providers.ts): the
// values leave this module only through secrets(), for the runtime that starts the server.
import { McpServerUpsertSchema, type McpServerUpsert } from '@threadline/protocol';
import { StoreError, type KeyStorage, type McpServerRecord, type McpServersRepo, type McpToolPin } from '../types';
import { parseInput, type RepoContext } from './context';
import { createSealer, type KeyPolicy } from '../secrets/sealer';

interface Row {
  id: string;
  name: string;
  transport: 'stdio' | 'http';
  command: string | null;
  args: string;
  url: string | null;
  env_names: string;
  header_names: string;
  secrets_cipher: string | null;
  secret_storage: KeyStorage;
  enabled: number;
  startup: 'lazy' | 'launch';
  auto_approve: string;
  cwd: string | null;
  env_allow: string;
  created_at: number;
  updated_at: number;
}

interface Secrets {
  env: Record<string, string>;
  headers: Record<string, string>;
}

const toRecord = (r: Row): McpServerRecord => ({
  id: r.id,
  name: r.name,
  transport: r.transport,
  command: r.command,
  args: JSON.parse(r.args) as string[],
  url: r.url,
  envNames: JSON.parse(r.env_names) as string[],
  headerNames: JSON.parse(r.header_names) as string[],
  cwd: r.cwd,
  envAllow: JSON.parse(r.env_allow) as string[],
  enabled: r.enabled === 1,
  startup: r.startup,
  autoApprove: JSON.parse(r.auto_approve) as boolean | string[],
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The next secret map: a string sets a name, null keeps its stored value; unlisted names go. */
function mergeSecrets(
  next: Record<string, string | null> | undefined,
  stored: Record<string, string>,
): Record<string, string> {
  if (next === undefined) return stored;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(next)) {
    if (v !== null) out[k] = v;
    else if (k in stored) out[k] = stored[k]!;
  }
  return out;
}

export function createMcpServersRepo(ctx: RepoContext, keys: KeyPolicy): McpServersRepo {
  const { db } = ctx;
  const getRow = db.prepare<[string], Row>('SELECT * FROM mcp_servers WHERE id = ?');
  const byName = db.prepare<[string], Row>('SELECT * FROM mcp_servers WHERE name = ?');
  const listRows = db.prepare<[], Row>('SELECT * FROM mcp_servers ORDER BY created_at, rowid');
  const insert = db.prepare(
    `INSERT INTO mcp_servers (id, name, transport, command, args, url, env_names, header_names, secrets_cipher, secret_storage, enabled, startup, auto_approve, cwd, env_allow, created_at, updated_at)
     VALUES (@id, @name, @transport, @command, @args, @url, @env_names, @header_names, @secrets_cipher, @secret_storage, @enabled, @startup, @auto_approve, @cwd, @env_allow, @created_at, @updated_at)`,
  );
  const update = db.prepare(
    `UPDATE mcp_servers SET name = @name, transport = @transport, command = @command, args = @args, url = @url, env_names = @env_names,
       header_names = @header_names, secrets_cipher = @secrets_cipher, secret_storage = @secret_storage, enabled = @enabled,
       startup = @startup, auto_approve = @auto_approve, cwd = @cwd, env_allow = @env_allow, updated_at = @updated_at WHERE id = @id`,
  );
  const deleteRow = db.prepare<[string]>('DELETE FROM mcp_servers WHERE id = ?');
  const pinRows = db.prepare<[string], { tool: string; hash: string; description: string; pinned_at: number }>(
    'SELECT tool, hash, description, pinned_at FROM mcp_tool_pins WHERE server_id = ? ORDER BY tool',
  );
  const putPin = db.prepare(
    `INSERT INTO mcp_tool_pins (server_id, tool, hash, description, pinned_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (server_id, tool) DO UPDATE SET hash = excluded.hash, description = excluded.description, pinned_at = excluded.pinned_at`,
  );
  const pinTx = db.transaction((id: string, tools: readonly Omit<McpToolPin, 'pinnedAt'>[]) => {
    mustRow(id);
    const now = ctx.now();
    for (const t of tools) putPin.run(id, t.tool, t.hash, t.description, now);
  });

  const mustRow = (id: string): Row => {
    const r = getRow.get(id);
    if (!r) throw new StoreError('not_found', `MCP server ${id} does not exist.`);
    return r;
  };

  const sealer = createSealer(keys);
  function open(r: Row): Secrets {
    if (r.secrets_cipher === null) return { env: {}, headers: {} };
    return JSON.parse(
      sealer.open(
        r.secrets_cipher,
        r.secret_storage,
        `The secrets of MCP server "${r.name}" are encrypted, but no secure storage is available to decrypt them.`,
      ),
    ) as Secrets;
  }

  function seal(s: Secrets): { secrets_cipher: string | null; secret_storage: KeyStorage } {
    if (Object.keys(s.env).length === 0 && Object.keys(s.headers).length === 0)
      return { secrets_cipher: null, secret_storage: 'none' };
    const { cipher, storage } = sealer.seal(
      JSON.stringify(s),
      'Cannot save the environment variables or headers of this server: no secure storage (OS keychain) is available.',
    );
    return { secrets_cipher: cipher, secret_storage: storage };
  }

  const upsertTx = db.transaction((input: McpServerUpsert): McpServerRecord => {
    const p = parseInput(McpServerUpsertSchema, input, 'MCP server');
    const existing = p.id !== undefined ? mustRow(p.id) : null;
    const clash = byName.get(p.name);
    if (clash && clash.id !== existing?.id)
      throw new StoreError('invalid_input', `An MCP server named "${p.name}" already exists.`);
    const stored = existing ? open(existing) : { env: {}, headers: {} };
    // A transport change drops the other transport's secrets: they belong to a different server.
    const sameTransport = existing?.transport === p.transport;
    const secrets: Secrets =
      p.transport === 'stdio'
        ? { env: mergeSecrets(p.env, sameTransport ? stored.env : {}), headers: {} }
        : { env: {}, headers: mergeSecrets(p.headers, sameTransport ? stored.headers : {}) };
    const now = ctx.now();
    const row: Row = {
      id: existing?.id ?? ctx.newId(),
      name: p.name,
      transport: p.transport,
      command: p.transport === 'stdio' ? p.command : null,
      args: JSON.stringify(p.transport === 'stdio' ? (p.args ?? []) : []),
      url: p.transport === 'http' ? p.url : null,
      env_names: JSON.stringify(Object.keys(secrets.env)),
      header_names: JSON.stringify(Object.keys(secrets.headers)),
      ...seal(secrets),
      enabled: (p.enabled ?? (existing ? existing.enabled === 1 : true)) ? 1 : 0,
      startup: p.startup ?? existing?.startup ?? 'lazy',
      auto_approve: p.autoApprove !== undefined ? JSON.stringify(p.autoApprove) : (existing?.auto_approve ?? 'false'),
      cwd: p.transport === 'stdio' ? (p.cwd !== undefined ? p.cwd : (existing?.cwd ?? null)) : null,
      env_allow:
        p.transport === 'stdio'
          ? p.envAllow !== undefined
            ? JSON.stringify([...new Set(p.envAllow)])
            : (existing?.env_allow ?? '[]')
          : '[]',
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    if (existing) update.run(row);
    else insert.run(row);
    return toRecord(mustRow(row.id));
  });

  return {
    list: () => listRows.all().map(toRecord),
    get(id) {
      const r = getRow.get(id);
      return r ? toRecord(r) : null;
    },
    upsert: (input) => upsertTx.immediate(input),
    remove(id) {
      mustRow(id);
      deleteRow.run(id);
    },
    secrets: (id) => open(mustRow(id)),
    pins: (id) =>
      pinRows.all(id).map((r) => ({ tool: r.tool, hash: r.hash, description: r.description, pinnedAt: r.pinned_at })),
    pin: (id, tools) => pinTx.immediate(id, tools),
  };
}
