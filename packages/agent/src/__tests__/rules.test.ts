import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { testUser } from '@threadline/fake-llm/testUser';
import { rulesScenario, type ScenarioResult } from './rulesScenario';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** What must hold, whoever runs it. */
function expectHeld(r: ScenarioResult, root: string): void {
  // Issue 34 item 6: no rule from a Makefile card; allowed once, it edited; an edit outside still asks.
  expect(r.makefile).toEqual({ asked: true, blocked: 'protected', rememberRefused: 'invalid_input', edited: true });
  expect(r.outsideEditAsked).toBe(true);
  // A folder rule, offered as the folder the file is in (by its real path), never matches past it.
  expect(r.folderRule).toEqual({
    offered: { kind: 'path', tool: 'read_file', scope: { kind: 'folder', path: path.join(root, 'other') } },
    saved: true,
  });
  expect(r.throughLinkAsked).toBe(true);
  expect(r.siblingAsked).toBe(true);
  // A deny rule: no card, nothing removed, the model reads the rule and its reason.
  expect(r.deny).toMatchObject({ asked: false, status: 'denied', fileKept: true });
  expect(r.deny.modelRead).toMatch(/a rule the user saved does not allow this call \(shell: rm …\)/);
  expect(r.deny.modelRead).toMatch(/Move files to the trash folder instead\./);
  // After a restart, in a new session in the same folder: the folder rule runs the call and is named.
  expect(r.afterRestart).toEqual({ asked: false, status: 'ok', ruleNamed: true, inForce: 2 });
  // A sandbox-only rule does not hold where the command would run outside the sandbox.
  expect(r.sandboxOnly).toEqual({ asked: true, why: { state: 'unavailable', reason: 'disabled' } });
}

describe('permission rules end to end', () => {
  it('hold as the card said, through a restart, in this process', async () => {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tl-rules-')));
    made.push(root);
    expectHeld(await rulesScenario(root), root);
  }, 60_000);

  it('hold the same for an unprivileged user', () => {
    const user = testUser();
    const root = realpathSync(user.tempDir('tl-rules-user-'));
    made.push(root);
    user.reach(process.execPath);
    const main = fileURLToPath(new URL('./rulesScenarioMain.ts', import.meta.url));
    const agentDir = fileURLToPath(new URL('../..', import.meta.url));
    const a = user.argv(process.execPath, ['--import', 'tsx', main, root]);
    const r = spawnSync(a.command, a.args, {
      cwd: agentDir,
      encoding: 'utf8',
      env: user.env({ PATH: process.env.PATH }, path.join(root, 'home')),
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as ScenarioResult;
    expect(result.uid).toBe(user.uid);
    expectHeld(result, root);
  }, 150_000);
});
