// Browser mode on a headless box has no keychain: keys may be stored in plain text there, and the
// row must say so. Existing keys were all encrypted. Also: "undo last" looks up active records.
export const V3_KEY_STORAGE = `
ALTER TABLE provider_profiles ADD COLUMN key_storage TEXT NOT NULL DEFAULT 'none'
  CHECK (key_storage IN ('encrypted', 'plaintext', 'none'));
UPDATE provider_profiles SET key_storage = 'encrypted' WHERE api_key_cipher IS NOT NULL;
CREATE INDEX idx_compactions_active ON compactions(session_id, active);
`;
