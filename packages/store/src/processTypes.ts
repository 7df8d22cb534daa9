// The running tool processes (crash hygiene) part of @threadline/store's surface;
// types.ts re-exports it with the rest.

export interface ToolProcess {
  id: string;
  sessionId: string;
  toolCallId: string;
  pid: number;
  /** The process group (POSIX), null on Windows. */
  pgid: number | null;
  command: string;
  /** The app process that started it. */
  hostPid: number;
  startedAt: number;
}

export interface ProcessesRepo {
  /** Recorded when a tool process starts; returns its id. */
  add(p: Omit<ToolProcess, 'id' | 'startedAt'>): string;
  /** Removed when it ends. */
  remove(id: string): void;
  /** Oldest first. */
  list(): ToolProcess[];
}
