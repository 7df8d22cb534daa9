/** Where the agent works and what it may never touch (resolved once, at start). */
export interface Workspace {
  /** The process's working directory (a fallback only: the system prompt names the session's folder). */
  cwd: string;
  /** The user's home folder, resolved (for `~`, the default folder and credential places). */
  homeDir: string;
  /** The app's data folder and database file, resolved: no tool may touch them. */
  dataDir: string;
  dbFile: string;
  platform: NodeJS.Platform;
  fileExists: (p: string) => boolean;
}
