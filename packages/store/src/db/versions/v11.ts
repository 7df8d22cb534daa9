/**
 * The OS sandbox (issue 21): the `sandboxed` approval policy (SQLite cannot change a CHECK, so
 * tool_approvals is rebuilt with its rows), and each session's "allow network for commands".
 */
export const V11_SANDBOX = `
CREATE TABLE tool_approvals_v10 (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tool_name TEXT NOT NULL,
  policy TEXT NOT NULL CHECK (policy IN ('ask', 'sandboxed', 'auto', 'deny')),
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, tool_name)
);
INSERT INTO tool_approvals_v10 (session_id, tool_name, policy, updated_at)
  SELECT session_id, tool_name, policy, updated_at FROM tool_approvals;
DROP TABLE tool_approvals;
ALTER TABLE tool_approvals_v10 RENAME TO tool_approvals;
CREATE TABLE session_sandbox (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  network INTEGER NOT NULL CHECK (network IN (0, 1)),
  updated_at INTEGER NOT NULL
);
`;
