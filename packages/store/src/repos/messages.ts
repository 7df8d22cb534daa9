// Append-only history. The only later changes are the cached token count and UI meta.
import * as z from 'zod';
import {
  ChatMessageSchema,
  SEARCH_MARK,
  type SearchHit,
  MessageKindSchema,
  VisibilitySchema,
  VISIBLE_TO_ALL,
  type StoredMessage,
  type ToolCall,
} from '@threadline/protocol';
import { PATH_CTE, RECOUNT_SQL } from '../db/branchSql';
import {
  StoreError,
  type ListMessagesOptions,
  type MessageVersions,
  type MessagesRepo,
  type NewMessage,
} from '../types';
import { json, parseInput, parseJson, type RepoContext } from './context';
import { packOutput, unpackOutput } from '../db/outputCodec';

const NewMessageSchema = z.object({
  ...ChatMessageSchema.shape,
  id: z.string().min(1).max(200).optional(),
  kind: z.optional(MessageKindSchema),
  visibility: z.optional(VisibilitySchema),
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
  /** Compressed as read (see outputCodec); the text itself on the way in. */
  full_output?: Buffer | string | null;
  meta: string | null;
  parent_id: string | null;
}

const COLUMNS =
  'id, session_id, seq, created_at, role, content, tool_calls, tool_call_id, name, kind, visible_user, visible_agent, tokens, meta, parent_id';
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
  if (r.full_output !== undefined) m.fullOutput = r.full_output === null ? null : unpackOutput(r.full_output);
  if (r.meta !== null) m.meta = parseJson<Record<string, unknown>>(r.meta) ?? {};
  m.parentId = r.parent_id;
  return m;
}

export type MessagesRepoImpl = MessagesRepo & {
  /** Inserts inside the caller's transaction (used by compactions.apply). */
  insertInTx(
    sessionId: string,
    msgs: NewMessage[],
    defaults: { visibility: StoredMessage['visibility']; parentId?: string | null },
  ): StoredMessage[];
};

export function isConversationMessage(r: {
  role: string;
  kind: string;
  visible_user: number;
  content: string | null;
}): boolean {
  if (r.visible_user !== 1 || r.kind !== 'normal') return false;
  return r.role === 'user' || (r.role === 'assistant' && (r.content ?? '') !== '');
}

/** Which versions a message competes with: a user's request, or whatever answered it. */
const slotOf = (r: { role: string; kind: string }): 'request' | 'reply' =>
  r.role === 'user' && r.kind === 'normal' ? 'request' : 'reply';

export function createMessagesRepo(ctx: RepoContext): MessagesRepoImpl {
  const { db } = ctx;
  type PathArgs = { sessionId: string; afterSeq: number };
  // The branch's rows come in seq order from idx_messages_session_seq (`+id` keeps the planner off
  // the id index), instead of a copy of the whole history sorted in a temporary b-tree.
  const listFull = db.prepare<[PathArgs], MessageRow>(
    `${PATH_CTE} ${WITH_OUTPUT} WHERE m.session_id = @sessionId AND +m.id IN (SELECT id FROM path) AND m.seq > @afterSeq ORDER BY m.seq`,
  );
  const listLight = db.prepare<[PathArgs], MessageRow>(
    `${PATH_CTE} SELECT ${COLUMNS} FROM messages WHERE session_id = @sessionId AND +id IN (SELECT id FROM path) AND seq > @afterSeq ORDER BY seq`,
  );
  const listEvery = db.prepare<[string], MessageRow>(`${WITH_OUTPUT} WHERE m.session_id = ? ORDER BY m.seq`);
  const shapes = db.prepare<[string], { id: string; parent_id: string | null; role: string; kind: string }>(
    'SELECT id, parent_id, role, kind FROM messages WHERE session_id = ? ORDER BY seq',
  );
  const leafStmt = db.prepare<[string], { l: string | null }>('SELECT active_leaf_id AS l FROM sessions WHERE id = ?');
  const setLeafStmt = db.prepare<[string | null, string]>('UPDATE sessions SET active_leaf_id = ? WHERE id = ?');
  // The session list counts the messages of the branch shown; after a fork or a switch it is recounted.
  const recount = db.prepare<[{ sessionId: string }]>(RECOUNT_SQL);
  // The newest message at each level below `id`: the branch the user most recently worked on.
  const newestDescendant = db.prepare<[string], { id: string }>(
    `WITH RECURSIVE down(id, depth) AS (
       SELECT ?, 0
       UNION ALL
       SELECT (SELECT c.id FROM messages c WHERE c.parent_id = down.id ORDER BY c.seq DESC LIMIT 1), depth + 1
       FROM down WHERE down.id IS NOT NULL
     )
     SELECT id FROM down WHERE id IS NOT NULL ORDER BY depth DESC LIMIT 1`,
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
  const insertOutput = db.prepare<[string, Buffer]>(
    'INSERT INTO message_outputs (message_id, full_output) VALUES (?, ?)',
  );
  const touchSession = db.prepare<[number, number, string]>(
    'UPDATE sessions SET updated_at = ?, message_count = message_count + ? WHERE id = ?',
  );
  const setTokensStmt = db.prepare<[number | null, string]>('UPDATE messages SET tokens = ? WHERE id = ?');
  const setMetaStmt = db.prepare<[string, string]>('UPDATE messages SET meta = ? WHERE id = ?');

  const lastSeq = (sessionId: string): number => lastSeqStmt.get(sessionId)?.s ?? 0;

  // What the user sees as a conversation: their requests and the answers, not notices or summaries.
  const SEARCHABLE = "m.visible_user = 1 AND m.kind = 'normal' AND m.role IN ('user', 'assistant')";
  type HitRow = Omit<SearchHit, 'sessionTitle' | 'parentSessionId'> & {
    sessionTitle: string;
    parentSessionId: string | null;
  };
  const HIT_COLUMNS =
    'm.session_id AS sessionId, s.title AS sessionTitle, m.id AS messageId, m.seq AS seq, m.role AS role, m.created_at AS createdAt, s.parent_id AS parentSessionId';
  // The trigram index answers LIKE (no positions needed); `%` and `_` in the query are wildcards
  // there, so the exact, case-insensitive substring test narrows the candidates afterwards.
  const searchFts = db.prepare<[{ pattern: string; q: string; limit: number }], HitRow & { content: string }>(
    `SELECT ${HIT_COLUMNS}, m.content AS content
     FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid JOIN sessions s ON s.id = m.session_id
     WHERE messages_fts.content LIKE @pattern AND instr(lower(m.content), lower(@q)) > 0 AND ${SEARCHABLE}
     ORDER BY m.created_at DESC, m.seq DESC LIMIT @limit`,
  );
  // The trigram index needs three characters; one or two (a two-character Chinese word) scan.
  const searchLike = db.prepare<[string, number], HitRow & { content: string }>(
    `SELECT ${HIT_COLUMNS}, m.content AS content, '' AS snippet
     FROM messages m JOIN sessions s ON s.id = m.session_id
     WHERE m.content LIKE ? ESCAPE '\\' AND ${SEARCHABLE} ORDER BY m.created_at DESC, m.seq DESC LIMIT ?`,
  );

  const leaf = (sessionId: string): string | null => leafStmt.get(sessionId)?.l ?? null;

  function insertInTx(
    sessionId: string,
    input: NewMessage[],
    defaults: { visibility: StoredMessage['visibility']; parentId?: string | null },
  ): StoredMessage[] {
    const msgs = parseInput(NewMessagesSchema, input, 'messages');
    if (!sessionExists.get(sessionId)) throw new StoreError('not_found', `Session ${sessionId} does not exist.`);
    let parent = defaults.parentId !== undefined ? defaults.parentId : leaf(sessionId);
    if (parent !== null) {
      const p = getOne.get(parent);
      if (!p || p.session_id !== sessionId)
        throw new StoreError('invalid_input', `Message ${parent} is not a message of session ${sessionId}.`);
    }
    const now = ctx.now();
    let seq = lastSeq(sessionId);
    let counted = 0;
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
        parent_id: parent,
      };
      parent = row.id;
      const { full_output: fullOutput, ...messageRow } = row;
      insert.run(messageRow);
      if (typeof fullOutput === 'string') insertOutput.run(row.id, packOutput(fullOutput));
      if (isConversationMessage(row)) counted += 1;
      out.push(rowToMessage(row));
    }
    touchSession.run(now, counted, sessionId);
    if (out.length > 0) setLeafStmt.run(parent, sessionId);
    if (defaults.parentId !== undefined && out.length > 0) recount.run({ sessionId });
    return out;
  }

  const appendTx = db.transaction((sessionId: string, msgs: NewMessage[], parentId?: string | null) =>
    insertInTx(sessionId, msgs, { visibility: VISIBLE_TO_ALL, parentId }),
  );
  const mustOwn = (sessionId: string, id: string): void => {
    const r = getOne.get(id);
    if (!r || r.session_id !== sessionId)
      throw new StoreError('not_found', `Message ${id} is not a message of session ${sessionId}.`);
  };
  const setTokensTx = db.transaction((updates: { id: string; tokens: number | null }[]) => {
    for (const u of updates) setTokensStmt.run(u.tokens, u.id);
  });
  const TokenUpdatesSchema = z.array(z.object({ id: z.string(), tokens: z.number().int().nonnegative().nullable() }));

  return {
    insertInTx,
    leaf,
    list(sessionId: string, opts: ListMessagesOptions = {}): StoredMessage[] {
      const stmt = opts.fullOutput === false ? listLight : listFull;
      // Row by row: never the raw rows and the messages of a long history alive at once.
      const out: StoredMessage[] = [];
      for (const r of stmt.iterate({ sessionId, afterSeq: opts.afterSeq ?? -1 })) out.push(rowToMessage(r));
      return out;
    },
    listAll: (sessionId) => listEvery.all(sessionId).map(rowToMessage),
    versions(sessionId) {
      const rows = shapes.all(sessionId);
      const groups = new Map<string, string[]>();
      const keyOf = new Map<string, string>();
      for (const r of rows) {
        const key = `${r.parent_id ?? ''}|${slotOf(r)}`;
        keyOf.set(r.id, key);
        const g = groups.get(key);
        if (g) g.push(r.id);
        else groups.set(key, [r.id]);
      }
      const out: Record<string, MessageVersions> = {};
      for (const [id, key] of keyOf) {
        const ids = groups.get(key)!;
        if (ids.length > 1) out[id] = { index: ids.indexOf(id) + 1, count: ids.length, ids };
      }
      return out;
    },
    switchTo(sessionId, id, opts = {}) {
      return db
        .transaction(() => {
          mustOwn(sessionId, id);
          const target = opts.exact ? id : (newestDescendant.get(id)?.id ?? id);
          setLeafStmt.run(target, sessionId);
          recount.run({ sessionId });
          return target;
        })
        .immediate();
    },
    get(id: string): StoredMessage | null {
      const r = getOne.get(id);
      return r ? rowToMessage(r) : null;
    },
    append(sessionId: string, msgs: NewMessage[], opts: { parentId?: string | null } = {}): StoredMessage[] {
      return appendTx.immediate(sessionId, msgs, opts.parentId);
    },
    search(query, opts = {}) {
      const q = parseInput(z.string().trim().min(1).max(500), query, 'search query');
      const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
      const hits =
        [...q].length >= 3
          ? searchFts.all({ pattern: `%${q}%`, q, limit })
          : searchLike.all(`%${q.replace(/[\\%_]/g, (c) => '\\' + c)}%`, limit);
      // A hit in a helper's messages names the session it belongs to (absent for a chat's).
      return hits.map(({ content, parentSessionId, ...hit }) => ({
        ...hit,
        snippet: snippetAround(content, q),
        ...(parentSessionId !== null ? { parentSessionId } : {}),
      }));
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

/** The same shape as FTS5's snippet() for the short-query scan: the first match, some text around it. */
export function snippetAround(text: string, q: string, radius = 40): string {
  const at = text.toLowerCase().indexOf(q.toLowerCase());
  if (at < 0) return text.slice(0, radius * 2);
  const start = Math.max(0, at - radius);
  const end = Math.min(text.length, at + q.length + radius);
  return (
    (start > 0 ? '…' : '') +
    text.slice(start, at) +
    SEARCH_MARK.start +
    text.slice(at, at + q.length) +
    SEARCH_MARK.end +
    text.slice(at + q.length, end) +
    (end < text.length ? '…' : '')
  );
}
