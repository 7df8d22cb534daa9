// MCP servers (tools from the ecosystem). Env values and headers often hold tokens: they are one
// sealed JSON blob like an API key; their names stay readable so listing never decrypts.
export const V7_MCP_SERVERS = `
CREATE TABLE mcp_servers (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  transport TEXT NOT NULL CHECK (transport IN ('stdio', 'http')),
  command TEXT,
  args TEXT NOT NULL DEFAULT '[]',       -- JSON string[]
  url TEXT,
  env_names TEXT NOT NULL DEFAULT '[]',  -- JSON string[]
  header_names TEXT NOT NULL DEFAULT '[]',
  secrets_cipher TEXT,                   -- sealed JSON {env, headers}
  secret_storage TEXT NOT NULL DEFAULT 'none' CHECK (secret_storage IN ('encrypted', 'plaintext', 'none')),
  enabled INTEGER NOT NULL DEFAULT 1,
  startup TEXT NOT NULL DEFAULT 'lazy' CHECK (startup IN ('lazy', 'launch')),
  auto_approve TEXT NOT NULL DEFAULT 'false', -- JSON true | false | string[]
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
`;
