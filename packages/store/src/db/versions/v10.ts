// MCP servers run in their own folder (null: a neutral one under the data folder) with an
// allow-list of the app's environment; the tools a server offers are pinned by a hash of their
// description and schema, so a changed one waits for the user before the model sees it.
export const V10_MCP_PINS = `
ALTER TABLE mcp_servers ADD COLUMN cwd TEXT;
ALTER TABLE mcp_servers ADD COLUMN env_allow TEXT NOT NULL DEFAULT '[]'; -- JSON string[]
CREATE TABLE mcp_tool_pins (
  server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  tool TEXT NOT NULL,
  hash TEXT NOT NULL,          -- sha256 of the tool's name, description and input schema
  description TEXT NOT NULL,   -- as approved, for the "changed" view
  pinned_at INTEGER NOT NULL,
  PRIMARY KEY (server_id, tool)
);
`;
