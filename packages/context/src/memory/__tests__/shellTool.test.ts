// One rule for "is this a shell tool": the gate and memory read it from memory/shellTool.ts. The
// gate used to accept `shell|terminal` and memory a wider list; every name either accepted is a
// shell for both now.
import { describe, expect, it } from 'vitest';
import { applyToolGate } from '../../gate/apply';
import { extractDrafts } from '../extract';
import { isShellToolName } from '../shellTool';
import { fact, shell } from './helpers';

const SHELL_NAMES = ['shell', 'Terminal', 'bash', 'exec_command', 'run', 'powershell', 'cmd', 'my_shell_tool'];
const OTHER_NAMES = ['read_file', 'write_file', 'edit_file', 'grep', 'glob', 'list_dir', 'manage_todo_list'];

describe('isShellToolName', () => {
  it.each(SHELL_NAMES)('%s is a shell tool', (name) => expect(isShellToolName(name)).toBe(true));
  it.each(OTHER_NAMES)('%s is not', (name) => expect(isShellToolName(name)).toBe(false));
  it('read_tool_output (the built-in pager) is not', () => expect(isShellToolName('read_tool_output')).toBe(false));
});

describe('the gate and memory agree on every spelling', () => {
  const desktop = '/home/ann/Schreibtisch/Desktop';
  const gate = (toolName: string) =>
    applyToolGate({
      toolName,
      args: { command: 'ls ~/Desktop' },
      facts: [fact({ category: 'artifact', content: desktop, evidenceCount: 2 })],
      lastUserMessage: 'list my files',
      strategy: 'cfpm_memory_v1',
      enabled: true,
      visibility: null,
      runtimeVisibility: 'brief',
      fileExists: (p) => p === desktop,
    });

  it.each(SHELL_NAMES)('the gate rewrites a probe of %s', (name) => {
    expect(gate(name)).toMatchObject({ rewritten: true, command: `ls ${desktop}` });
  });
  it.each(OTHER_NAMES)('the gate leaves %s alone', (name) => {
    expect(gate(name)).toMatchObject({ rewritten: false, reason: 'not_shell_tool' });
  });

  it.each(SHELL_NAMES)('memory reads the written file of a %s call', (name) => {
    const drafts = extractDrafts(shell('cat > /srv/notes.txt', 'exit code: 0', '', name));
    expect(drafts.some((d) => d.category === 'artifact' && d.content === '/srv/notes.txt' && d.written)).toBe(true);
  });
});
