// Runs the permission-rule scenario in a process of its own (the test runs it as an unprivileged
// user) and prints what it saw as JSON on stdout.
import { rulesScenario } from './rulesScenario';

const root = process.argv[2];
if (!root) throw new Error('usage: rulesScenarioMain <folder>');
rulesScenario(root).then(
  (r) => process.stdout.write(JSON.stringify(r)),
  (err: unknown) => {
    process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
    process.exit(1);
  },
);
