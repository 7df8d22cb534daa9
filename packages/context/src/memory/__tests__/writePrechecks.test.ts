import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readChatFile } from '../../cli/transcripts';
import { changedPaths, HEREDOC, REDIRECT, SCRIPT_WRITES, splitHeredocs } from '../shellWrites';
import { parsedCall } from '../writes';

/**
 * changedPaths skips a pattern when the text lacks the literal part every match of it holds
 * (`>` for a redirect, `<<` for a heredoc, `open(` for Python's open…). A skipped pattern must be
 * one that could not have matched: checked on the commands of every fixture and on tricky ones.
 */
const dir = fileURLToPath(new URL('../../../../../fixtures/transcripts/', import.meta.url));

function fixtureCommands(): string[] {
  const out: string[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json')))
    for (const m of readChatFile(dir + f))
      for (const tc of m.tool_calls ?? []) {
        if (parsedCall(tc).shell === null) continue;
        try {
          const a = JSON.parse(tc.function.arguments) as Record<string, unknown>;
          const cmd = ['command', 'cmd', 'script'].map((k) => a[k]).find((v) => typeof v === 'string');
          if (typeof cmd === 'string') out.push(cmd);
        } catch {
          out.push(tc.function.arguments);
        }
      }
  return out;
}

const TRICKY = [
  `python3 -c "open('out.txt', 'w').write('x')"`,
  `python - <<'EOF'\nfrom pathlib import Path\nPath("a/b.txt").write_text("x")\nPath('gone.py').unlink()\nEOF`,
  `node -e "require('fs').writeFileSync('x.json', '{}'); fs.appendFile('log.txt', 'a')"`,
  `python -c "import os, shutil; os.remove('a.py'); shutil.rmtree('build'); shutil.move('a', 'b'); os.rename('c', 'd')"`,
  `python -c "import os; os.replace('tmp.txt', 'final.txt'); os.unlink('x')"`,
  `python3 -c "open(f'out.txt', mode='a')"`,
  `echo hi >out.txt; echo a >>'quoted name.txt'; ls >| forced.txt; cmd 2>&1 > log.txt`,
  `cat <<EOF > f.py\nx = 1\nEOF`,
  `cat <<-"END" >> g.md\ntext\nEND`,
  `python3 x.py`,
  `echo "a > b" && grep -r "<<" src`,
];

describe('changedPaths pre-checks', () => {
  const commands = [...fixtureCommands(), ...TRICKY];
  const texts = commands.flatMap((c) => [c, ...splitHeredocs(c).bodies, ...c.split(/\n|&&|\|\||;|\|/)]);

  it('reads commands from every fixture', () => {
    expect(commands.length).toBeGreaterThan(200);
  });

  it('every match of a script pattern holds one of its literals', () => {
    let matched = 0;
    for (const w of SCRIPT_WRITES)
      for (const t of texts) {
        const hits = [...t.matchAll(w.re)];
        if (hits.length === 0) continue;
        matched++;
        expect(
          w.needs.some((n) => t.includes(n)),
          `${w.re.source} in ${t}`,
        ).toBe(true);
      }
    // Each pattern is matched by some text here, so the check is not vacuous.
    for (const w of SCRIPT_WRITES)
      expect(
        texts.some((t) => [...t.matchAll(w.re)].length > 0),
        w.re.source,
      ).toBe(true);
    expect(matched).toBeGreaterThan(5);
  });

  it('every redirect holds `>` and every heredoc `<<`', () => {
    for (const t of texts) {
      if ([...t.matchAll(REDIRECT)].length > 0) expect(t.includes('>'), t).toBe(true);
      if ([...t.matchAll(HEREDOC)].length > 0) expect(t.includes('<<'), t).toBe(true);
    }
  });

  it('finds the writes of the tricky commands', () => {
    expect(changedPaths(TRICKY[0]!)).toEqual([{ path: 'out.txt', op: 'write' }]);
    expect(changedPaths(TRICKY[1]!).map((c) => c.path)).toEqual(['a/b.txt', 'gone.py']);
    expect(changedPaths(TRICKY[2]!).map((c) => c.path)).toEqual(['x.json', 'log.txt']);
    expect(changedPaths(TRICKY[3]!)).toEqual([
      { path: 'a.py', op: 'delete' },
      { path: 'build', op: 'delete' },
      { path: 'b', op: 'write' },
      { path: 'd', op: 'write' },
    ]);
    expect(changedPaths(TRICKY[6]!).map((c) => c.path)).toEqual([
      'out.txt',
      'quoted name.txt',
      'forced.txt',
      'log.txt',
    ]);
    expect(changedPaths(TRICKY[9]!)).toEqual([]);
    expect(changedPaths(TRICKY[10]!)).toEqual([]);
  });
});
