import type { MemoryFact } from '@threadline/protocol';
import { parseNotice } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { fact, ids, shell } from '../../memory/__tests__/helpers';
import { refreshMemory } from '../../memory/refresh';
import { applyToolGate, folderFromFact, type ToolGateInput } from '../apply';

const WIN_DESKTOP = 'C:\\Users\\Ann\\OneDrive\\Desktop';
const POSIX_DESKTOP = '/home/ann/Schreibtisch/Desktop';
const trusted = (content: string, p: Partial<MemoryFact> = {}) =>
  fact({ category: 'artifact', content, evidenceCount: 2, ...p });
const baseFacts = [
  trusted(WIN_DESKTOP),
  trusted('C:\\Users\\Ann\\Documents'),
  trusted('D:\\Downloads'),
  trusted(POSIX_DESKTOP),
  trusted('/data/ann/Documents'),
  trusted('/data/ann/Downloads'),
];
const exists = new Set(baseFacts.map((f) => f.content));

function gate(command: string, p: Partial<ToolGateInput> = {}) {
  return applyToolGate({
    toolName: 'shell',
    args: { command, timeout: 30 },
    facts: baseFacts,
    lastUserMessage: 'list my files',
    strategy: 'cfpm_memory_v1',
    enabled: true,
    visibility: null,
    runtimeVisibility: 'brief',
    fileExists: (path) => exists.has(path),
    ...p,
  });
}

describe('applyToolGate rewrites', () => {
  it.each([
    ['Get-ChildItem $env:USERPROFILE\\Desktop', `Get-ChildItem ${WIN_DESKTOP}`],
    ['Get-ChildItem "$env:USERPROFILE\\Desktop\\*.txt"', `Get-ChildItem "${WIN_DESKTOP}\\*.txt"`],
    ["Get-ChildItem ([Environment]::GetFolderPath('Desktop'))", `Get-ChildItem ('${WIN_DESKTOP}')`],
    [
      'Get-ChildItem "$([Environment]::GetFolderPath("MyDocuments"))\\a"',
      'Get-ChildItem "C:\\Users\\Ann\\Documents\\a"',
    ],
    ['dir %USERPROFILE%\\Downloads /b', 'dir D:\\Downloads /b'],
    ['ls ~/Desktop', `ls ${POSIX_DESKTOP}`],
    ['ls "$HOME/Documents/x y"', 'ls "/data/ann/Documents/x y"'],
    ['cd ${HOME}/Downloads && ls', 'cd /data/ann/Downloads && ls'],
    ['ls "$(xdg-user-dir DESKTOP)"', `ls "${POSIX_DESKTOP}"`],
    ['ls $(xdg-user-dir DOWNLOAD)/a.zip', 'ls /data/ann/Downloads/a.zip'],
  ])('%s', (command, expected) => {
    const r = gate(command);
    expect(r).toMatchObject({ rewritten: true, command: expected, reason: 'rewritten' });
    expect(r.args).toEqual({ command: expected, timeout: 30 });
  });

  it('quotes a path with spaces when the probe is unquoted, and gives up when a subpath follows', () => {
    const facts = [trusted('/home/Ann Lee/Desktop')];
    const opts = { facts, fileExists: () => true };
    expect(gate('ls ~/Desktop', opts).command).toBe("ls '/home/Ann Lee/Desktop'");
    expect(gate('ls ~/Desktop/x', opts)).toMatchObject({
      rewritten: false,
      reason: 'unsafe_path',
      command: 'ls ~/Desktop/x',
    });
  });

  it('reads cmd and script arguments too, and any tool whose name has shell or terminal', () => {
    const r = applyToolGate({
      toolName: 'run_in_terminal',
      args: { script: 'ls ~/Desktop' },
      facts: baseFacts,
      strategy: 'cfpm_memory_v1',
      enabled: true,
      fileExists: () => true,
    });
    expect(r.args).toEqual({ script: `ls ${POSIX_DESKTOP}` });
    expect(gate('x', { args: { cmd: 'dir %USERPROFILE%\\Desktop' } }).command).toBe(`dir ${WIN_DESKTOP}`);
  });

  it('emits a gate notice that parses, and honours visibility with fallback to the runtime one', () => {
    const r = gate('ls ~/Desktop');
    expect(parseNotice(r.notice)).toEqual({
      type: 'gate',
      payload: {
        version: 'v1',
        verbosity: 'brief',
        action: 'rewrite_known_folder_probe',
        tool: 'shell',
        target: 'Desktop',
        path: POSIX_DESKTOP,
        originalCommand: 'ls ~/Desktop',
        rewrittenCommand: `ls ${POSIX_DESKTOP}`,
      },
    });
    expect(gate('ls ~/Desktop', { visibility: null, runtimeVisibility: 'off' }).notice).toBeNull();
    expect(gate('ls ~/Desktop', { visibility: 'debug', runtimeVisibility: 'off' }).notice).toContain(
      '"verbosity":"debug"',
    );
    expect(gate('ls ~/Desktop', { visibility: 'off', runtimeVisibility: 'debug' })).toMatchObject({
      rewritten: true,
      notice: null,
    });
  });
});

describe('applyToolGate guards (the command runs unchanged)', () => {
  const cases: Array<[string, string, Partial<ToolGateInput>, string]> = [
    ['other strategy', 'ls ~/Desktop', { strategy: 'legacy_segmented' }, 'strategy_not_cfpm'],
    ['gate off', 'ls ~/Desktop', { enabled: false }, 'gate_disabled'],
    ['not a shell tool', 'ls ~/Desktop', { toolName: 'read_file' }, 'not_shell_tool'],
    ['no probe', 'ls -la', {}, 'no_probe'],
    ['explicit absolute path (POSIX)', 'cp ~/Desktop/a.txt /srv/backup/', {}, 'explicit_absolute_path'],
    [
      'explicit absolute path (Windows)',
      'Copy-Item $env:USERPROFILE\\Desktop\\a.txt E:\\backup',
      {},
      'explicit_absolute_path',
    ],
    [
      're-verify (EN)',
      'ls ~/Desktop',
      { lastUserMessage: 'Please verify again where my desktop is' },
      'reverify_requested',
    ],
    ['re-verify (recheck)', 'ls ~/Desktop', { lastUserMessage: 'recheck the folder' }, 'reverify_requested'],
    ['re-verify (ZH)', 'ls ~/Desktop', { lastUserMessage: '请重新验证桌面路径' }, 'reverify_requested'],
    ['no known path', 'ls ~/Desktop', { facts: [] }, 'no_known_path'],
    [
      'untrusted fact',
      'ls ~/Desktop',
      { facts: [fact({ category: 'artifact', content: POSIX_DESKTOP })] },
      'untrusted_fact',
    ],
    [
      'known invalid',
      'ls ~/Desktop',
      { facts: [...baseFacts, fact({ category: 'invalid_path', content: POSIX_DESKTOP })] },
      'path_known_invalid',
    ],
    ['missing on disk', 'ls ~/Desktop', { fileExists: () => false }, 'path_missing'],
    ['stale fact', 'ls ~/Desktop', { facts: [trusted(POSIX_DESKTOP, { status: 'stale' })] }, 'no_known_path'],
    ['platform mismatch', 'ls ~/Desktop', { platform: 'win32' }, 'no_known_path'],
  ];
  it.each(cases)('%s', (_n, command, p, reason) => {
    const r = gate(command, p);
    expect(r).toMatchObject({ rewritten: false, command, notice: null, reason });
    expect(r.args.command).toBe(command);
  });

  it('no command argument', () => {
    expect(gate('', { args: { path: 'x' } })).toMatchObject({ rewritten: false, command: null, reason: 'no_command' });
  });

  it('an existence check that throws leaves the command unchanged', () => {
    const r = gate('ls ~/Desktop', {
      fileExists: () => {
        throw new Error('EACCES');
      },
    });
    expect(r).toMatchObject({ rewritten: false, command: 'ls ~/Desktop', reason: 'error' });
  });

  it.each([
    ['user-made', { evidenceCount: 1, source: 'user' as const }],
    ['pinned', { evidenceCount: 1, pinned: true }],
    ['validated', { evidenceCount: 1, lastValidatedAt: 5 }],
    ['confident', { evidenceCount: 1, confidence: 0.9 }],
  ])('trusts a %s fact', (_n, p) => {
    expect(gate('ls ~/Desktop', { facts: [trusted(POSIX_DESKTOP, p)] }).rewritten).toBe(true);
  });

  it('/dev/null and cmd switches are not explicit paths', () => {
    expect(gate('ls ~/Desktop 2>/dev/null').rewritten).toBe(true);
    expect(gate('dir /s /b %USERPROFILE%\\Desktop').rewritten).toBe(true);
  });
});

describe('folderFromFact', () => {
  it('finds the folder in the fact or above a file inside it, localized names too', () => {
    expect(folderFromFact('C:\\Users\\Ann\\Desktop\\report.docx', 'Desktop')).toBe('C:\\Users\\Ann\\Desktop');
    expect(folderFromFact('C:\\Users\\安\\桌面', 'Desktop')).toBe('C:\\Users\\安\\桌面');
    expect(folderFromFact('/home/a/Downloads/', 'Downloads')).toBe('/home/a/Downloads');
    expect(folderFromFact('~/Desktop', 'Desktop')).toBeNull();
    expect(folderFromFact('/home/a/Documents', 'Desktop')).toBeNull();
  });
});

describe('a path that was invalid and later found', () => {
  it('is no longer refused once a successful probe shows it exists', () => {
    const desktop = '/home/ann/Desktop';
    const refresh = (messages: ReturnType<typeof shell>, facts: MemoryFact[] = []) =>
      refreshMemory({ sessionId: 's1', messages, facts, now: 100, newId: ids(`r${facts.length}-`) }).facts;
    const missing = refresh(
      shell(`ls ${desktop}`, `ls: cannot access '${desktop}': No such file or directory\nexit code: 2`),
    );
    const input = (facts: MemoryFact[]) => gate('ls ~/Desktop', { facts, fileExists: (p) => p === desktop });
    expect(input(missing)).toMatchObject({ rewritten: false });
    const found = refresh(shell(`test -d ${desktop}`, 'exit code: 0'), missing);
    expect(input(found)).toMatchObject({ rewritten: true, command: `ls ${desktop}` });
  });
});
