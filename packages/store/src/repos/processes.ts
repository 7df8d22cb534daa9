import type { ProcessesRepo, ToolProcess } from '../types';
import type { RepoContext } from './context';

interface ProcessRow {
  id: string;
  session_id: string;
  tool_call_id: string;
  pid: number;
  pgid: number | null;
  command: string;
  host_pid: number;
  started_at: number;
}

const toProcess = (r: ProcessRow): ToolProcess => ({
  id: r.id,
  sessionId: r.session_id,
  toolCallId: r.tool_call_id,
  pid: r.pid,
  pgid: r.pgid,
  command: r.command,
  hostPid: r.host_pid,
  startedAt: r.started_at,
});

/** Tool processes while they run: what a restart after a crash must end (and tell the user about). */
export function createProcessesRepo(ctx: RepoContext): ProcessesRepo {
  const { db } = ctx;
  const insert = db.prepare(
    `INSERT INTO tool_processes (id, session_id, tool_call_id, pid, pgid, command, host_pid, started_at)
     VALUES (@id, @session_id, @tool_call_id, @pid, @pgid, @command, @host_pid, @started_at)`,
  );
  const removeOne = db.prepare<[string]>('DELETE FROM tool_processes WHERE id = ?');
  const listAll = db.prepare<[], ProcessRow>('SELECT * FROM tool_processes ORDER BY started_at, rowid');
  return {
    add(p) {
      const id = ctx.newId();
      insert.run({
        id,
        session_id: p.sessionId,
        tool_call_id: p.toolCallId,
        pid: p.pid,
        pgid: p.pgid,
        command: p.command,
        host_pid: p.hostPid,
        started_at: ctx.now(),
      });
      return id;
    },
    remove(id) {
      removeOne.run(id);
    },
    list: () => listAll.all().map(toProcess),
  };
}
