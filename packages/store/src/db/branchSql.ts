// SQL over the active branch that the migrations and the repositories share (db/ is below repos/).
/** Ids of the active branch, from its leaf back to the first message. */
export const PATH_CTE = `WITH RECURSIVE path(id) AS (
  SELECT active_leaf_id FROM sessions WHERE id = @sessionId
  UNION ALL
  SELECT m.parent_id FROM messages m JOIN path ON m.id = path.id WHERE m.parent_id IS NOT NULL
)`;

/**
 * What the session list counts: the conversation as the user reads it, their requests and the
 * answers with text; not tool results, tool-call-only steps, notices or summaries ("2 messages"
 * for one exchange). RECOUNT_SQL and isConversationMessage (repos/messages.ts) say the same thing.
 */
export const RECOUNT_SQL = `${PATH_CTE} UPDATE sessions SET message_count =
  (SELECT count(*) FROM messages WHERE id IN (SELECT id FROM path) AND visible_user = 1 AND kind = 'normal'
     AND (role = 'user' OR (role = 'assistant' AND coalesce(content, '') <> '')))
  WHERE id = @sessionId`;
