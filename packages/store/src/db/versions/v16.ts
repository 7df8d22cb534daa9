// Attachments (issue 26): each file's bytes stored once, by content hash, referenced by id from the
// messages that carry it (meta.attachments); a session's own provider profile and model.
export const V16_ATTACHMENTS_SESSION_MODEL = `
CREATE TABLE attachments (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,      -- sha256 of kind and bytes: the same file is stored once
  kind TEXT NOT NULL CHECK (kind IN ('image', 'text')),
  name TEXT NOT NULL,             -- the name it was first stored under (each message keeps its own)
  mime TEXT NOT NULL,
  size INTEGER NOT NULL,
  width INTEGER,
  height INTEGER,
  pages INTEGER,
  chars INTEGER,
  data BLOB,                      -- an image's bytes
  text BLOB,                      -- a text's or PDF's text, outputCodec.packOutput
  created_at INTEGER NOT NULL
);
ALTER TABLE sessions ADD COLUMN profile_id TEXT;
ALTER TABLE sessions ADD COLUMN model TEXT;
`;
