import { SEARCH_INDEX_V6_SQL } from '../searchIndex';

// Branches (edit and resend, regenerate, retry) keep history append-only: every message points at
// the one before it on its branch, and the session remembers the leaf of the branch it shows. A
// compaction belongs to the branch whose leaf it saw (anchor_id). Existing history is one line.
// Full-text search: an FTS5 index over messages.content, trigram-tokenized so Chinese (no spaces)
// matches too, kept by triggers in the same transaction as every message write.
export const V6_BRANCHES_SEARCH = `
ALTER TABLE messages ADD COLUMN parent_id TEXT;
UPDATE messages SET parent_id = (
  SELECT p.id FROM messages p WHERE p.session_id = messages.session_id AND p.seq < messages.seq ORDER BY p.seq DESC LIMIT 1
);
CREATE INDEX idx_messages_parent ON messages(parent_id);
ALTER TABLE sessions ADD COLUMN active_leaf_id TEXT;
UPDATE sessions SET active_leaf_id = (SELECT m.id FROM messages m WHERE m.session_id = sessions.id ORDER BY m.seq DESC LIMIT 1);
ALTER TABLE compactions ADD COLUMN anchor_id TEXT;
UPDATE compactions SET anchor_id = (
  SELECT m.id FROM messages m WHERE m.session_id = compactions.session_id AND m.seq <= compactions.after_seq ORDER BY m.seq DESC LIMIT 1
);
${SEARCH_INDEX_V6_SQL}
`;
