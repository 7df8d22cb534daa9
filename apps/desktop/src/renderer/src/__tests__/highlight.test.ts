import { describe, expect, it } from 'vitest';
import common from 'highlight.js/lib/common';
import core from 'highlight.js/lib/core';
import type { Mode } from 'highlight.js';
import { GRAMMARS, grammarOf } from '../lib/highlight';

// The lazy grammar table against highlight.js itself: the same grammars as its "common" set, and
// for each the aliases it declares and the grammars it embeds, so a fence written ```sh or an
// HTML <script> finds its grammar without loading all of them.
const names = common.listLanguages();

function embedded(mode: unknown, seen = new Set<unknown>()): Set<string> {
  const out = new Set<string>();
  if (!mode || typeof mode !== 'object' || seen.has(mode)) return out;
  seen.add(mode);
  const sub = (mode as Mode).subLanguage;
  for (const s of sub === undefined ? [] : Array.isArray(sub) ? sub : [sub]) out.add(s);
  for (const v of Object.values(mode))
    for (const x of Array.isArray(v) ? v : [v]) for (const s of embedded(x, seen)) out.add(s);
  return out;
}

describe('the lazy grammar table', () => {
  it('holds highlight.js’ common grammars, with their own aliases and the grammars they embed', () => {
    expect(Object.keys(GRAMMARS).sort()).toEqual([...names].sort());
    for (const name of names) {
      const lang = common.getLanguage(name)!;
      expect([...(GRAMMARS[name]!.aliases ?? [])].sort(), name).toEqual([...(lang.aliases ?? [])].sort());
      const uses = [...embedded(lang)].filter((s) => names.includes(s)).sort();
      expect([...(GRAMMARS[name]!.uses ?? [])].sort(), name).toEqual(uses);
    }
  });

  it('each loader loads its own grammar', async () => {
    for (const [name, g] of Object.entries(GRAMMARS)) {
      const fresh = core.newInstance();
      fresh.registerLanguage(name, (await g.load()).default);
      const own = common.getLanguage(name)!;
      const loaded = fresh.getLanguage(name)!;
      expect([loaded.name, loaded.aliases, Object.keys(loaded)], name).toEqual([
        own.name,
        own.aliases,
        Object.keys(own),
      ]);
    }
  });

  it('finds a grammar by name or alias, in any case; an unknown language has none', () => {
    expect(grammarOf('sh')).toBe('bash');
    expect(grammarOf('TS')).toBe('typescript');
    expect(grammarOf('html')).toBe('xml');
    expect(grammarOf('brainfuck')).toBeNull();
  });
});
