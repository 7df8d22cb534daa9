import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';

/**
 * Version 21 (issue 38): permission rules. One table for every rule the user saved, whatever its
 * scope: a session's (deleted with it), a working folder's, or everywhere. What a rule matches and
 * where it came from are JSON checked by the protocol's zod schemas when read. The per-session
 * "always" of earlier versions (tool_approvals) become session rules, and that table goes.
 */
export const V21_RULES = `
CREATE TABLE permission_rules (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL CHECK (scope IN ('session', 'folder', 'everywhere')),
  session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
  folder TEXT,
  decision TEXT NOT NULL CHECK (decision IN ('allow', 'ask', 'deny')),
  match TEXT NOT NULL,
  reason TEXT,
  origin TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  hits INTEGER NOT NULL DEFAULT 0,
  last_hit_at INTEGER,
  CHECK ((scope = 'session') = (session_id IS NOT NULL)),
  CHECK ((scope = 'folder') = (folder IS NOT NULL))
);
CREATE INDEX idx_permission_rules_session ON permission_rules(session_id);
`;

/** The file tools of the versions that stored tool_approvals: their "always" covered paths. */
const FILE_TOOLS = new Set(['read_file', 'write_file', 'edit_file', 'list_dir', 'grep', 'glob']);

type OldPolicy = 'ask' | 'sandboxed' | 'auto' | 'deny';

/**
 * A per-session policy as the rule that means what the card said, and never more: an "always" on
 * a file tool covered the working folder (never outside it; issue 34 item 6), on `shell` any
 * command (in the sandbox for `sandboxed`), on any other tool (MCP) every call of it.
 */
function ruleOf(tool: string, policy: OldPolicy): { decision: string; match: object } {
  const decision = policy === 'auto' ? 'allow' : policy === 'deny' ? 'deny' : policy === 'ask' ? 'ask' : null;
  if (tool === 'shell') {
    const sandbox = policy === 'sandboxed' ? 'only' : 'also_outside';
    return { decision: decision ?? 'allow', match: { kind: 'command', tool, words: [], more: true, sandbox } };
  }
  // `sandboxed` meant `ask` for every tool that cannot run in the sandbox.
  const d = decision ?? 'ask';
  if (FILE_TOOLS.has(tool))
    return { decision: d, match: { kind: 'path', tool, scope: { kind: d === 'allow' ? 'inside' : 'any' } } };
  return { decision: d, match: { kind: 'tool', tool } };
}

export function migrateApprovalsToRules(db: Database.Database): void {
  const rows = db
    .prepare<[], { session_id: string; tool_name: string; policy: OldPolicy; updated_at: number }>(
      'SELECT session_id, tool_name, policy, updated_at FROM tool_approvals ORDER BY session_id, tool_name',
    )
    .all();
  const insert = db.prepare(
    `INSERT INTO permission_rules (id, scope, session_id, decision, match, origin, created_at, updated_at)
     VALUES (?, 'session', ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of rows) {
    const { decision, match } = ruleOf(r.tool_name, r.policy);
    const origin = JSON.stringify({ kind: 'migrated', sessionId: r.session_id });
    insert.run(randomUUID(), r.session_id, decision, JSON.stringify(match), origin, r.updated_at, r.updated_at);
  }
  db.exec('DROP TABLE tool_approvals;');
}
