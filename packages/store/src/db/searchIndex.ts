// The full-text search index over messages: the SQL of each version of it, used by the migrations
// that build it (6, 9), by ensureSearchIndex and by reclaimSpace (migrations.ts).

/**
 * Migration 6's search index: every message's content, positions included. Kept as it shipped (a
 * file at versions 6 to 8 rebuilds this one when it is missing); SEARCH_INDEX_SQL replaced it.
 */
export const SEARCH_INDEX_V6_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(content, content='messages', content_rowid='rowid', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS messages_fts_ai AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_ad AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
`;

/** What search.messages searches: the user's and the assistant's messages (the conversation). */
export const SEARCHABLE_ROW = (r: string): string =>
  `${r}.visible_user = 1 AND ${r}.kind = 'normal' AND ${r}.role IN ('user', 'assistant')`;

/**
 * The search index (from version 9) and the triggers that keep it, in the same transaction as every
 * message write. External content: the text is stored once, in messages, and the index covers only
 * the searchable rows (the view; role, kind and visibility never change after insert). Trigram-
 * tokenized so Chinese (no spaces) matches too; detail=none keeps no positions (search runs LIKE,
 * which the trigram index answers without them), columnsize=0 no per-row sizes (no ranking).
 * Also run by ensureSearchIndex when the index is missing. The store VACUUMs only once, after
 * migration 9 (VACUUM could renumber the implicit rowids the index points at), and rebuilds it then.
 */
export const SEARCH_INDEX_SQL = `
CREATE VIEW IF NOT EXISTS messages_searchable AS
  SELECT rowid AS rid, content FROM messages m WHERE ${SEARCHABLE_ROW('m')};
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(content, content='messages_searchable', content_rowid='rid',
  tokenize='trigram', detail='none', columnsize=0);
CREATE TRIGGER IF NOT EXISTS messages_fts_ai AFTER INSERT ON messages WHEN ${SEARCHABLE_ROW('new')} BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_ad AFTER DELETE ON messages WHEN ${SEARCHABLE_ROW('old')} BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
`;

export const DROP_SEARCH_INDEX = `
DROP TRIGGER IF EXISTS messages_fts_ai;
DROP TRIGGER IF EXISTS messages_fts_ad;
DROP TABLE IF EXISTS messages_fts;
DROP VIEW IF EXISTS messages_searchable;
`;
