import { StoreError, type SessionSandboxRepo } from '../types';
import type { RepoContext } from './context';

export function createSessionSandboxRepo(ctx: RepoContext): SessionSandboxRepo {
  const { db } = ctx;
  const getOne = db.prepare<[string], { network: number }>('SELECT network FROM session_sandbox WHERE session_id = ?');
  const put = db.prepare<[string, number, number]>(
    'INSERT INTO session_sandbox (session_id, network, updated_at) VALUES (?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET network = excluded.network, updated_at = excluded.updated_at',
  );
  const sessionExists = db.prepare<[string], { id: string }>('SELECT id FROM sessions WHERE id = ?');
  return {
    network: (sessionId) => getOne.get(sessionId)?.network === 1,
    setNetwork(sessionId, allowed) {
      if (typeof allowed !== 'boolean') throw new StoreError('invalid_input', 'network must be true or false.');
      if (!sessionExists.get(sessionId)) throw new StoreError('not_found', `Session ${sessionId} does not exist.`);
      put.run(sessionId, allowed ? 1 : 0, ctx.now());
    },
  };
}
