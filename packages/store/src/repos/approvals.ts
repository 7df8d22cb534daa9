import { ApprovalPolicySchema, type ApprovalPolicy } from '@threadline/protocol';
import * as z from 'zod';
import { StoreError, type ApprovalsRepo } from '../types';
import { parseInput, type RepoContext } from './context';

export function createApprovalsRepo(ctx: RepoContext): ApprovalsRepo {
  const { db } = ctx;
  const listAll = db.prepare<[string], { tool_name: string; policy: ApprovalPolicy }>(
    'SELECT tool_name, policy FROM tool_approvals WHERE session_id = ? ORDER BY tool_name',
  );
  const put = db.prepare<[string, string, string, number]>(
    'INSERT INTO tool_approvals (session_id, tool_name, policy, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(session_id, tool_name) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at',
  );
  const removeOne = db.prepare<[string, string]>('DELETE FROM tool_approvals WHERE session_id = ? AND tool_name = ?');
  const sessionExists = db.prepare<[string], { id: string }>('SELECT id FROM sessions WHERE id = ?');

  return {
    set(sessionId, toolName, policy) {
      const p = parseInput(ApprovalPolicySchema, policy, 'approval policy');
      const tool = parseInput(z.string().min(1).max(200), toolName, 'tool name');
      if (!sessionExists.get(sessionId)) throw new StoreError('not_found', `Session ${sessionId} does not exist.`);
      put.run(sessionId, tool, p, ctx.now());
    },
    remove(sessionId, toolName) {
      removeOne.run(sessionId, toolName);
    },
    list: (sessionId) => Object.fromEntries(listAll.all(sessionId).map((r) => [r.tool_name, r.policy])),
  };
}
