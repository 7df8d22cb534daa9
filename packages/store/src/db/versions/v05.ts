// What the agent may touch (issue 12): each session has its working folder (NULL: the default,
// resolved by the runtime), and running tool processes are recorded so a restart after a crash
// can end them and mark their turn.
export const V5_AGENT_REACH = `
ALTER TABLE sessions ADD COLUMN working_folder TEXT;
CREATE TABLE tool_processes (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tool_call_id TEXT NOT NULL,
  pid INTEGER NOT NULL,
  pgid INTEGER,              -- the process group (POSIX), killed whole
  command TEXT NOT NULL,
  host_pid INTEGER NOT NULL, -- the app process that started it
  started_at INTEGER NOT NULL
);
`;
