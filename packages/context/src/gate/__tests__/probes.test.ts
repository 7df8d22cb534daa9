/**
 * Probe forms and quoting: the PowerShell `$HOME\Desktop` / `~\Desktop` and the POSIX
 * `"$HOME"/Desktop` probes are rewritten; a probe inside single quotes is literal text in
 * PowerShell and POSIX shells and is left alone. Re-verify phrases in English and Chinese.
 */
import { describe, expect, it } from 'vitest';
import { fact } from '../../memory/__tests__/helpers';
import { applyToolGate, quoteState } from '../apply';
import { findProbes } from '../probes';
import { asksToReverify } from '../reverify';

const WIN = {
  Desktop: 'C:\\Users\\Ann\\Desktop',
  Documents: 'C:\\Users\\Ann\\Documents',
  Downloads: 'C:\\Users\\Ann\\Downloads',
};
const NIX = { Desktop: '/home/ann/Desktop', Documents: '/home/ann/Documents', Downloads: '/home/ann/Downloads' };
const facts = [...Object.values(WIN), ...Object.values(NIX)].map((content) =>
  fact({ category: 'artifact', content, evidenceCount: 2 }),
);

const gate = (command: string, lastUserMessage = 'list my files') =>
  applyToolGate({
    toolName: 'shell',
    args: { command },
    facts,
    lastUserMessage,
    strategy: 'cfpm_memory_v1',
    enabled: true,
    fileExists: () => true,
  });

describe('PowerShell $HOME / ~ and POSIX "$HOME" probes', () => {
  it.each([
    ['Get-ChildItem $HOME\\Desktop', `Get-ChildItem ${WIN.Desktop}`],
    ['Get-ChildItem ${HOME}\\Documents\\*.docx', `Get-ChildItem ${WIN.Documents}\\*.docx`],
    ['Get-ChildItem "$HOME\\Downloads"', `Get-ChildItem "${WIN.Downloads}"`],
    ['Get-ChildItem ~\\Desktop', `Get-ChildItem ${WIN.Desktop}`],
    ['Set-Location ~\\Documents; Get-ChildItem', `Set-Location ${WIN.Documents}; Get-ChildItem`],
    ['Get-ChildItem "$HOME"\\Downloads', `Get-ChildItem ${WIN.Downloads}`],
    ['ls "$HOME"/Desktop', `ls ${NIX.Desktop}`],
    ['ls "${HOME}"/Documents/report.pdf', `ls ${NIX.Documents}/report.pdf`],
    ['cd "$HOME"/Downloads && ls', `cd ${NIX.Downloads} && ls`],
  ])('%s', (command, expected) => {
    expect(gate(command)).toMatchObject({ rewritten: true, command: expected });
  });

  it('classifies the shell of each new form', () => {
    expect(findProbes('dir $HOME\\Desktop')[0]).toMatchObject({
      shell: 'powershell',
      target: 'Desktop',
      text: '$HOME\\Desktop',
    });
    expect(findProbes('dir ~\\Downloads')[0]).toMatchObject({
      shell: 'powershell',
      target: 'Downloads',
      text: '~\\Downloads',
    });
    expect(findProbes('ls "$HOME"/Documents')[0]).toMatchObject({
      shell: 'posix',
      target: 'Documents',
      text: '"$HOME"/Documents',
    });
    expect(findProbes('ls foo~\\Desktop')).toEqual([]);
  });
});

describe('a probe inside single quotes is literal text', () => {
  it.each([
    "echo '~/Desktop'",
    "grep -r '$HOME/Documents' notes.txt",
    "printf '%s\\n' 'see ${HOME}/Downloads'",
    "Write-Output '$env:USERPROFILE\\Desktop'",
    "Write-Output 'path: $HOME\\Documents'",
    'Write-Output \'[Environment]::GetFolderPath("Desktop")\'',
    'echo \\$HOME/Desktop',
  ])('%s runs unchanged', (command) => {
    expect(gate(command)).toMatchObject({ rewritten: false, command, reason: 'no_probe' });
  });

  it('rewrites only the probe outside the quotes', () => {
    expect(gate("echo '~/Desktop' && ls ~/Desktop").command).toBe(`echo '~/Desktop' && ls ${NIX.Desktop}`);
    expect(gate(`echo "it's" ~/Desktop`).command).toBe(`echo "it's" ${NIX.Desktop}`);
    expect(gate("echo it\\'s ~/Desktop").command).toBe(`echo it\\'s ${NIX.Desktop}`);
  });

  it('cmd has no single quotes: %USERPROFILE% is expanded there and still rewritten', () => {
    expect(gate("echo '%USERPROFILE%\\Desktop'").command).toBe(`echo '${WIN.Desktop}'`);
  });

  it("quoteState follows each shell's quoting and escapes", () => {
    expect(quoteState("a 'b", 4, 'posix')).toBe("'");
    expect(quoteState("a 'b", 4, 'cmd')).toBeNull();
    expect(quoteState('a \\"b', 5, 'posix')).toBeNull();
    expect(quoteState('a `"b', 5, 'powershell')).toBeNull();
    expect(quoteState("'a\\' b", 6, 'posix')).toBeNull(); // no escapes inside single quotes
  });
});

describe('re-verify requests', () => {
  it.each([
    '重新找一下桌面',
    '请再查看一次',
    '再查一下桌面在哪',
    'Please check once more',
    'look again at my desktop',
    'can you check my Desktop one more time',
    '再找一遍下载文件夹',
  ])('"%s" keeps the probe', (text) => {
    expect(asksToReverify(text)).toBe(true);
    expect(gate('ls ~/Desktop', text)).toMatchObject({ rewritten: false, reason: 'reverify_requested' });
  });

  it.each(['list my files', '把桌面上的文件列出来', 'once more, list the files', 'look at the report'])(
    '"%s" is no re-verify request',
    (text) => {
      expect(asksToReverify(text)).toBe(false);
    },
  );
});
