import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabelledFileSchema, labelledTotals, scoreSession } from '../src/index';
import { loadTranscripts } from '../src/cli/transcripts';
import { out } from './common';
import { table } from './stats';

/** The labelled memory fixture (fixtures/memory/labelled.json): precision and recall of CFPM facts. */
export function memoryBench(transcriptsDir: string): void {
  const file = join(transcriptsDir, '..', 'memory', 'labelled.json');
  if (!existsSync(file) || !existsSync(transcriptsDir)) {
    out('## Memory (labelled): skipped (no fixture)');
    return;
  }
  const labelled = LabelledFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const transcripts = new Map(loadTranscripts(transcriptsDir).map((t) => [t.name, t.messages]));
  const scores = labelled.sessions.map((s) => scoreSession(s, s.messages ?? transcripts.get(s.transcript ?? '') ?? []));
  const t = labelledTotals(scores);
  out(
    `## Memory (labelled fixture: ${labelled.sessions.length} sessions, ${t.must} must / ${labelled.sessions.reduce((n, s) => n + s.mustNot.length, 0)} must-not facts)`,
  );
  out(
    table(
      ['session', 'must found', 'must-not found', 'repeated candidates'],
      scores.map((s) => [
        s.name,
        `${s.found.length}/${s.found.length + s.missed.length}`,
        s.wrong.length,
        s.repeatedCandidates,
      ]),
    ),
  );
  out(
    `precision ${(t.precision * 100).toFixed(1)}% (${t.tp} / ${t.tp + t.fp}), recall ${(t.recall * 100).toFixed(1)}% (${t.tp} / ${t.must})`,
  );
}
