import { describe, expect, it } from 'vitest';
import { readCommand, type ReadCommand } from '../command';

const read = (c: string): ReadCommand => readCommand(c, 'linux');
const words = (c: string): string[][] => {
  const r = read(c);
  if (!r.ok) throw new Error(`unreadable: ${r.why}`);
  return r.parts.map((p) => p.words.map((w) => w.text));
};

describe('readCommand: the part of bash a rule can match', () => {
  it('reads words, quotes and escapes as bash passes them, marking what is not plain', () => {
    expect(words('git status --short')).toEqual([['git', 'status', '--short']]);
    expect(words(`git commit -m "fix: the \\"bug\\"" 'it''s'`)).toEqual([
      ['git', 'commit', '-m', 'fix: the "bug"', 'its'],
    ]);
    const r = read(`'git' g\\it "git" git`);
    expect(r.ok && r.parts[0]!.words.map((w) => [w.text, w.plain])).toEqual([
      ['git', false],
      ['git', false],
      ['git', false],
      ['git', true],
    ]);
    // Globs, braces and ~ expand: their value is not known.
    const g = read('ls *.ts ~/x {a,b}');
    expect(g.ok && g.parts[0]!.words.map((w) => w.known)).toEqual([true, false, false, false]);
    expect(words('npm test \\\n  --watch')).toEqual([['npm', 'test', '--watch']]);
    expect(words('cat 笔记.md')).toEqual([['cat', '笔记.md']]);
  });

  it('splits every compound form into its simple commands', () => {
    for (const c of [
      'git status && rm -rf /',
      'git status; rm -rf /',
      'git status || rm -rf /',
      'git status | rm -rf /',
      'git status |& rm -rf /',
      'git status\nrm -rf /',
      'git status & rm -rf /',
      'git status &&\n rm -rf /',
    ])
      expect(words(c), c).toEqual([
        ['git', 'status'],
        ['rm', '-rf', '/'],
      ]);
  });

  it('tells redirections to files from harmless ones, and assignments before the program', () => {
    const parts = (c: string) => {
      const r = read(c);
      if (!r.ok) throw new Error(r.why);
      return r.parts.map((p) => ({ assigns: p.assigns, redirects: p.redirects, words: p.words.map((w) => w.text) }));
    };
    for (const c of [
      'git status > out.txt',
      'git status >>~/.bashrc',
      'git status 2>err',
      'cat < /etc/passwd',
      'git status &>log',
      'cat <<< hi',
      'git status >| x',
    ])
      expect(parts(c)[0]!.redirects, c).toBe(true);
    for (const c of [
      'npm test 2>&1',
      'npm test >/dev/null',
      'npm test 2>/dev/null',
      'npm test &>/dev/null',
      'npm test >&2',
    ])
      expect(parts(c)[0], c).toEqual({ assigns: 0, redirects: false, words: ['npm', 'test'] });
    expect(parts('GIT_DIR=/evil git status')[0]).toEqual({ assigns: 1, redirects: false, words: ['git', 'status'] });
    expect(parts('PATH=/tmp/x; git status')[0]).toEqual({ assigns: 1, redirects: false, words: [] });
    // Quoted, it is a word: `'A=1'` runs a program of that name.
    expect(parts("'A=1' git")[0]).toEqual({ assigns: 0, redirects: false, words: ['A=1', 'git'] });
  });

  it('refuses everything it does not read exactly', () => {
    const cases: [string, string][] = [
      ['git status $(rm -rf /)', 'expansion'],
      ['git status `rm -rf /`', 'expansion'],
      ['git${IFS}status', 'expansion'],
      ['git$IFS status', 'expansion'],
      ['git "status $HOME"', 'expansion'],
      ['cat <<EOF\nrm -rf /\nEOF', 'heredoc'],
      ['diff <(ls) <(ls -a)', 'subshell'],
      ['(rm -rf /)', 'subshell'],
      ['{ rm -rf /; }', 'reserved_word'],
      ['if true; then rm -rf /; fi', 'reserved_word'],
      ['! git status', 'reserved_word'],
      ['git status # ; rm -rf /', 'comment'],
      ["git status 'unclosed", 'quote'],
      ['git status\u202E', 'hidden_chars'],
      ['git\u200B status', 'hidden_chars'],
      ['git\u00A0status', 'hidden_chars'],
      ['git\uFE0F status', 'hidden_chars'],
      ['git status\u{E0041}', 'hidden_chars'],
      ['git\u3164 status', 'hidden_chars'],
      ['git\u034F status', 'hidden_chars'],
      ['git status\r\nrm -rf /', 'hidden_chars'],
      ['git status ;; rm', 'syntax'],
      ['git status &&', 'syntax'],
      ['&& rm -rf /', 'syntax'],
      ['', 'syntax'],
    ];
    for (const [c, why] of cases) expect(read(c), JSON.stringify(c)).toEqual({ ok: false, why });
    expect(readCommand('git status', 'win32')).toEqual({ ok: false, why: 'platform' });
    expect(read('x'.repeat(20_000))).toEqual({ ok: false, why: 'too_long' });
  });
});
