// Append-only history. The only later changes are the cached token count and UI meta.
import { z } from 'zod';
import {
  ChatMessageSchema,
  MessageKindSchema,
  VisibilitySchema,
  VISIBLE_TO_ALL,
  type StoredMessage,
  type ToolCall,
} from '@threadline/protocol';
import { StoreError, type ListMessagesOptions, type MessagesRepo, type NewMessage } from '../types';
import { json, parseInput, parseJson, type RepoContext } from './context';

const NewMessageSchema = ChatMessageSchema.extend({
  id: z.string().min(1).max(200).optional(),
  kind: MessageKindSchema.optional(),
  visibility: VisibilitySchema.optional(),
  tokens: z.number().int().nonnegative().nullable().optional(),
  fullOutput: z.string().nullable().optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.number().int().optional(),
});
const NewMessagesSchema = z.array(NewMessageSchema);

interface MessageRow {
  id: string;
  session_id: string;
  seq: number;
  created_at: number;
  role: StoredMessage['role'];
  content: string | null;
  tool_calls: string | null;
  tool_call_id: string | null;
  name: string | null;
  kind: StoredMessage['kind'];
  visible_user: number;
  visible_agent: number;
  tokens: number | null;
  full_output?: string | null;
  meta: string | null;
}

const COLUMNS =
  'id, session_id, seq, created_at, role, content, tool_calls, tool_call_id, name, kind, visible_user, visible_agent, tokens, meta';
const M_COLUMNS = COLUMNS.split(', ')
  .map((c) => 'm.' + c)
  .join(', ');
const WITH_OUTPUT = `SELECT ${M_COLUMNS}, o.full_output FROM messages m LEFT JOIN message_outputs o ON o.message_id = m.id`;

export function rowToMessage(r: MessageRow): StoredMessage {
  const m: StoredMessage = {
    id: r.id,
    sessionId: r.session_id,
    seq: r.seq,
    createdAt: r.created_at,
    role: r.role,
    content: r.content,
    kind: r.kind,
    visibility: { user: r.visible_user === 1, agent: r.visible_agent === 1 },
    tokens: r.tokens,
  };
  if (r.tool_calls !== null) m.tool_calls = parseJson<ToolCall[]>(r.tool_calls) ?? [];
  if (r.tool_call_id !== null) m.tool_call_id = r.tool_call_id;
  if (r.name !== null) m.name = r.name;
  if (r.full_output !== undefined) m.fullOutput = r.full_output;
  if (r.meta !== null) m.meta = parseJson<Record<string, unknown>>(r.meta) ?? {};
  return m;
}

export type MessagesRepoImpl = MessagesRepo & {
  /** Inserts inside the caller's transaction (used by compactions.apply). */
  insertInTx(
    sessionId: string,
    msgs: NewMessage[],
    defaults: { visibility: StoredMessage['visibility'] },
  ): StoredMessage[];
};

export function createMessagesRepo(ctx: RepoContext): MessagesRepoImpl {
  const { db } = ctx;
  const listFull = db.prepare<[string, number], MessageRow>(
    `${WITH_OUTPUT} WHERE m.session_id = ? AND m.seq > ? ORDER BY m.seq`,
  );
  const listLight = db.prepare<[string, number], MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq`,
  );
  const getOne = db.prepare<[string], MessageRow>(`${WITH_OUTPUT} WHERE m.id = ?`);
  const lastSeqStmt = db.prepare<[string], { s: number | null }>(
    'SELECT max(seq) AS s FROM messages WHERE session_id = ?',
  );
  const countStmt = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM messages WHERE session_id = ?');
  const sessionExists = db.prepare<[string], { id: string }>('SELECT id FROM sessions WHERE id = ?');
  const insert = db.prepare(
    `INSERT INTO messages (${COLUMNS}) VALUES (${COLUMNS.split(', ')
      .map((c) => '@' + c)
      .join(', ')})`,
  );
  const insertOutput = db.prepare<[string, string]>(
    'INSERT INTO message_outputs (message_id, full_output) VALUES (?, ?)',
  );
  const touchSession = db.prepare<[number, number, string]>(
    'UPDATE sessions SET updated_at = ?, message_count = message_count + ? WHERE id = ?',
  );
  const setTokensStmt = db.prepare<[number | null, string]>('UPDATE messages SET tokens = ? WHERE id = ?');
  const setMetaStmt = db.prepare<[string, string]>('UPDATE messages SET meta = ? WHERE id = ?');

  const lastSeq = (sessionId: string): number => lastSeqStmt.get(sessionId)?.s ?? 0;

  function insertInTx(
    sessionId: string,
    input: NewMessage[],
    defaults: { visibility: StoredMessage['visibility'] },
  ): StoredMessage[] {
    const msgs = parseInput(NewMessagesSchema, input, 'messages');
    if (!sessionExists.get(sessionId)) throw new StoreError('not_found', `Session ${sessionId} does not exist.`);
    const now = ctx.now();
    let seq = lastSeq(sessionId);
    let userVisible = 0;
    const out: StoredMessage[] = [];
    for (const m of msgs) {
      seq += 1;
      const visibility = m.visibility ?? defaults.visibility;
      const row: MessageRow = {
        id: m.id ?? ctx.newId(),
        session_id: sessionId,
        seq,
        created_at: m.createdAt ?? now,
        role: m.role,
        content: m.content,
        tool_calls: m.tool_calls && m.tool_calls.length > 0 ? json(m.tool_calls) : null,
        tool_call_id: m.tool_call_id ?? null,
        name: m.name ?? null,
        kind: m.kind ?? 'normal',
        visible_user: visibility.user ? 1 : 0,
        visible_agent: visibility.agent ? 1 : 0,
        tokens: m.tokens ?? null,
        full_output: m.fullOutput ?? null,
        meta: m.meta ? json(m.meta) : null,
      };
      const { full_output: fullOutput, ...messageRow } = row;
      insert.run(messageRow);
      if (fullOutput !== null && fullOutput !== undefined) insertOutput.run(row.id, fullOutput);
      if (visibility.user) userVisible += 1;
      out.push(rowToMessage(row));
    }
    touchSession.run(now, userVisible, sessionId);
    return out;
  }

  const appendTx = db.transaction((sessionId: string, msgs: NewMessage[]) =>
    insertInTx(sessionId, msgs, { visibility: VISIBLE_TO_ALL }),
  );
  const setTokensTx = db.transaction((updates: { id: string; tokens: number | null }[]) => {
    for (const u of updates) setTokensStmt.run(u.tokens, u.id);
  });
  const TokenUpdatesSchema = z.array(z.object({ id: z.string(), tokens: z.number().int().nonnegative().nullable() }));

  return {
    insertInTx,
    list(sessionId: string, opts: ListMessagesOptions = {}): StoredMessage[] {
      const stmt = opts.fullOutput === false ? listLight : listFull;
      return stmt.all(sessionId, opts.afterSeq ?? -1).map(rowToMessage);
    },
    get(id: string): StoredMessage | null {
      const r = getOne.get(id);
      return r ? rowToMessage(r) : null;
    },
    append(sessionId: string, msgs: NewMessage[]): StoredMessage[] {
      return appendTx.immediate(sessionId, msgs);
    },
    setTokens(updates): void {
      setTokensTx.immediate(parseInput(TokenUpdatesSchema, updates, 'token updates'));
    },
    setMeta(id: string, meta: Record<string, unknown>): StoredMessage {
      const valid = parseInput(z.record(z.string(), z.unknown()), meta, 'message meta');
      if (setMetaStmt.run(json(valid), id).changes === 0)
        throw new StoreError('not_found', `Message ${id} does not exist.`);
      const r = getOne.get(id);
      if (!r) throw new StoreError('not_found', `Message ${id} does not exist.`);
      return rowToMessage(r);
    },
    count(sessionId: string): number {
      return countStmt.get(sessionId)?.n ?? 0;
    },
    lastSeq,
  };
}
