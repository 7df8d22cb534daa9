import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LabelledFileSchema, labelledTotals, scoreSession } from '..';
import { loadTranscripts, transcriptsDir } from '../../cli/transcripts';

/** fixtures/memory/labelled.json: facts that must and must not be in memory (issue 13). */
const file = LabelledFileSchema.parse(
  JSON.parse(readFileSync(join(transcriptsDir(), '..', 'memory', 'labelled.json'), 'utf8')),
);
const transcripts = new Map(loadTranscripts().map((t) => [t.name, t.messages]));

describe('labelled memory fixture', () => {
  const scores = file.sessions.map((s) => {
    const messages = s.messages ?? transcripts.get(s.transcript!);
    if (!messages) throw new Error(`labelled session ${s.name}: no transcript ${s.transcript}`);
    return scoreSession(s, messages);
  });

  it.each(scores.map((s) => [s.name, s]))('%s: every must fact, no must-not fact, no repeated candidate', (_, s) => {
    expect(s.missed, 'missed').toEqual([]);
    expect(s.wrong, 'must not appear').toEqual([]);
    expect(s.repeatedCandidates).toBe(0);
  });

  it('has labels in English, Chinese and from the transcripts, and reaches precision and recall 1', () => {
    expect(file.sessions.some((s) => s.transcript)).toBe(true);
    expect(file.sessions.filter((s) => s.messages).length).toBeGreaterThanOrEqual(2);
    const t = labelledTotals(scores);
    expect(t.must).toBeGreaterThanOrEqual(20);
    expect(file.sessions.reduce((n, s) => n + s.mustNot.length, 0)).toBeGreaterThanOrEqual(20);
    expect([t.precision, t.recall]).toEqual([1, 1]);
  });
});
