import { describe, expect, it } from 'vitest';
import { editorWrittenPaths, splitHeredocs, writtenPaths } from '../writes';

describe('writtenPaths', () => {
  it('sed -i targets, not the script', () => {
    expect(
      writtenPaths("sed -i 's/a/b/' django/db/models/query.py && sed -i.bak -e 's/x/y/' src/a.py src/b.py"),
    ).toEqual(['django/db/models/query.py', 'src/a.py', 'src/b.py']);
    expect(writtenPaths("sed -n '1,20p' src/a.py")).toEqual([]);
  });

  it('redirects and heredocs, ignoring > inside the heredoc body and 2>/dev/null', () => {
    const cmd =
      "cat <<'EOF' > reproduce.py\nif a > b:\n    print(1)\nEOF\npython reproduce.py 2>/dev/null > /tmp/out.log";
    expect(writtenPaths(cmd)).toEqual(['reproduce.py', '/tmp/out.log']);
    expect(splitHeredocs(cmd).bodies).toEqual(['if a > b:\n    print(1)']);
    expect(writtenPaths('cat > lib/x.py << EOF\nx = 1\nEOF')).toEqual(['lib/x.py']);
  });

  it('tee, cp/mv destinations, touch', () => {
    expect(
      writtenPaths('echo hi | tee -a notes.txt; cp a.py backup/a.py; mv tmp.txt out/final.txt; touch new.md'),
    ).toEqual(['notes.txt', 'backup/a.py', 'out/final.txt', 'new.md']);
  });

  it('python writes in inline scripts and heredocs', () => {
    const cmd =
      "python3 - <<'EOF'\nwith open('sympy/core/expr.py', 'w') as f:\n    f.write(s)\nPath('docs/x.rst').write_text(t)\nopen('read.py').read()\nEOF";
    expect(writtenPaths(cmd)).toEqual(['sympy/core/expr.py', 'docs/x.rst']);
  });

  it('structured editor tools', () => {
    expect(editorWrittenPaths('str_replace_editor', { command: 'str_replace', path: '/workspace/src/a.c' })).toEqual([
      '/workspace/src/a.c',
    ]);
    expect(editorWrittenPaths('str_replace_editor', { command: 'view', path: '/workspace/src/a.c' })).toEqual([]);
    expect(editorWrittenPaths('write_file', { path: 'src/b.ts' })).toEqual(['src/b.ts']);
  });
});
