// Automatic memory belongs to the branch it was learned on: facts and candidates are anchored to
// the branch leaf of their refresh. Rows from before stay unanchored, i.e. session-wide.
export const V8_MEMORY_BRANCHES = `
ALTER TABLE memory_facts ADD COLUMN anchor_id TEXT;
ALTER TABLE memory_candidates ADD COLUMN anchor_id TEXT;
-- A fact learned before a fork belongs to every branch from there: a branch that changes or drops
-- it hides it from the branches through its leaf (and keeps a changed copy) instead of editing it.
CREATE TABLE memory_fact_hides (
  fact_id TEXT NOT NULL REFERENCES memory_facts(id) ON DELETE CASCADE,
  anchor_id TEXT NOT NULL,
  PRIMARY KEY (fact_id, anchor_id)
);
`;
