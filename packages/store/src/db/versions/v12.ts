import type Database from 'better-sqlite3';
import { RECOUNT_SQL } from '../branchSql';

/** The session list counts the conversation only (requests and answers with text): every session recounted. */
export function recountConversations(db: Database.Database): void {
  const recount = db.prepare<[{ sessionId: string }]>(RECOUNT_SQL);
  for (const { id } of db.prepare<[], { id: string }>('SELECT id FROM sessions').all()) recount.run({ sessionId: id });
}
