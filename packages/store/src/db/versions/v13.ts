// A session's own system prompt (issue 23): the user's instructions for that session alone, added
// to the system prompt after the base prompt; NULL when it has none.
export const V13_SESSION_PROMPT = `
ALTER TABLE sessions ADD COLUMN system_prompt TEXT;
`;
