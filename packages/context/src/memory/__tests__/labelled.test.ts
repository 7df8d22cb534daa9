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

  const tune = file.sessions.flatMap((s, i) => (s.split === 'tune' ? [scores[i]!] : []));
  const holdout = file.sessions.flatMap((s, i) => (s.split === 'holdout' ? [scores[i]!] : []));

  it.each(tune.map((s) => [s.name, s]))('%s: every must fact, no must-not fact, no repeated candidate', (_, s) => {
    expect(s.missed, 'missed').toEqual([]);
    expect(s.wrong, 'must not appear').toEqual([]);
    expect(s.repeatedCandidates).toBe(0);
  });

  it('has labels in English, Chinese and from the transcripts; the sessions the rules were tuned on reach precision and recall 1', () => {
    expect(file.sessions.some((s) => s.transcript)).toBe(true);
    expect(file.sessions.filter((s) => s.messages).length).toBeGreaterThanOrEqual(2);
    const t = labelledTotals(tune);
    expect(t.must).toBeGreaterThanOrEqual(20);
    expect(file.sessions.reduce((n, s) => n + s.mustNot.length, 0)).toBeGreaterThanOrEqual(20);
    expect([t.precision, t.recall]).toEqual([1, 1]);
  });

  it('on sessions held out from tuning (labelled before the rules were written): precision ≥ 95 %', () => {
    expect(holdout.length).toBeGreaterThanOrEqual(3);
    const t = labelledTotals(holdout);
    expect(t.tp + t.fp).toBeGreaterThanOrEqual(80);
    expect(t.precision).toBeGreaterThanOrEqual(0.95);
    expect(t.recall).toBeGreaterThanOrEqual(0.9);
    for (const s of holdout) expect(s.repeatedCandidates).toBe(0);
  });
});
