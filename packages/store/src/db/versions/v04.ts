// Full tool outputs (up to 1 MiB each) sat inside the message rows, so reading a session's history
// walked their overflow pages even when it did not select them (meta came after them): about five
// times slower. They move to their own table, read only when asked for.
export const V4_MESSAGE_OUTPUTS = `
CREATE TABLE message_outputs (
  message_id TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  full_output TEXT NOT NULL
);
INSERT INTO message_outputs (message_id, full_output) SELECT id, full_output FROM messages WHERE full_output IS NOT NULL;
ALTER TABLE messages DROP COLUMN full_output;
`;
