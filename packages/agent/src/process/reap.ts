import { spawn } from 'node:child_process';
import type { Store, ToolProcess } from '@threadline/store';
import { TURN_ABORTED_TEXT, errorNoticeText } from '../noticeTexts';
import { childEnv } from './childEnv';

/** Ends a leftover tool process and everything it started (its whole group). */
function killGroup(p: ToolProcess, platform: NodeJS.Platform): void {
  if (platform === 'win32') {
    spawn('taskkill', ['/pid', String(p.pid), '/T', '/F'], { stdio: 'ignore', env: childEnv() }).on('error', () => {});
    return;
  }
  for (const target of p.pgid !== null ? [-p.pgid, p.pid] : [p.pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * At start (after a crash or kill -9 of the previous run): every tool process still recorded
 * belongs to a turn that never finished. Its group is killed, and its session gets the
 * turn_aborted marker and a notice naming the command, which may have run in part. The data
 * folder lock guarantees no other runtime owns these rows.
 */
export function reapLeftovers(store: Store, platform: NodeJS.Platform): void {
  const leftovers = store.processes.list();
  const bySession = new Map<string, ToolProcess[]>();
  for (const p of leftovers) {
    killGroup(p, platform);
    bySession.set(p.sessionId, [...(bySession.get(p.sessionId) ?? []), p]);
  }
  for (const [sessionId, procs] of bySession) {
    store.transaction(() => {
      if (store.sessions.get(sessionId)) {
        store.messages.append(sessionId, [
          { role: 'user', content: TURN_ABORTED_TEXT, kind: 'turn_aborted', visibility: { user: true, agent: true } },
          ...procs.map((p) => ({
            role: 'user' as const,
            content: errorNoticeText({ type: 'crash_interrupted', command: p.command }),
            kind: 'error_notice' as const,
            visibility: { user: true, agent: false },
          })),
        ]);
      }
      for (const p of procs) store.processes.remove(p.id);
    });
  }
}
