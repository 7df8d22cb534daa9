import type Database from 'better-sqlite3';
import { packOutput } from '../outputCodec';
import { SEARCH_INDEX_SQL, DROP_SEARCH_INDEX } from '../searchIndex';

// A smaller file (issue 14): full tool outputs compressed (a BLOB, see outputCodec; read only on
// request), and a search index over the conversation's text only, without positions. The index of
// version 6 was as large as the text it covered, tool results included, which search never shows.
export const V9_COMPACT_STORE = `
CREATE TABLE message_outputs_packed (
  message_id TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  full_output BLOB NOT NULL   -- outputCodec.packOutput(text)
);
${DROP_SEARCH_INDEX}
${SEARCH_INDEX_SQL}
`;

export function packExistingOutputs(db: Database.Database): void {
  // better-sqlite3 cannot write while a statement iterates: the rows are packed inside one statement.
  db.function('threadline_pack_output', { deterministic: true }, (text: unknown) => packOutput(String(text)));
  db.exec(`
    INSERT INTO message_outputs_packed (message_id, full_output)
      SELECT message_id, threadline_pack_output(full_output) FROM message_outputs;
    DROP TABLE message_outputs;
    ALTER TABLE message_outputs_packed RENAME TO message_outputs;
  `);
}
