import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error plain .mjs script without types
import { checkI18n } from '../check-i18n.mjs';

function fixture(en: object, zh: object, files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'tl-i18n-'));
  const localesDir = join(root, 'locales');
  const sourceDir = join(root, 'src');
  mkdirSync(localesDir);
  mkdirSync(sourceDir);
  writeFileSync(join(localesDir, 'en.json'), JSON.stringify(en));
  writeFileSync(join(localesDir, 'zh-CN.json'), JSON.stringify(zh));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(sourceDir, name), text);
  return checkI18n({ localesDir, sourceDir }) as string[];
}

describe('check-i18n', () => {
  it('passes localized components', () => {
    const ok = fixture(
      { chat: { send: 'Send' } },
      { chat: { send: '发送' } },
      {
        'A.tsx': `export const A = () => <button aria-label={t('chat.send')}>{t('chat.send')}</button>;`,
      },
    );
    expect(ok).toEqual([]);
  });

  it('fails on a key missing in one locale', () => {
    const p = fixture({ chat: { send: 'Send', stop: 'Stop' } }, { chat: { send: '发送' } }, {});
    expect(p.join('\n')).toMatch(/zh-CN: missing key chat.stop/);
  });

  it('fails on an unknown key and on hard-coded text or attributes', () => {
    const p = fixture(
      { a: 'A' },
      { a: 'A' },
      {
        'B.tsx': [
          `const x = t('nope.key');`,
          `export const B = () => <div title="Close window">Hello world</div>;`,
        ].join('\n'),
      },
    );
    const text = p.join('\n');
    expect(text).toMatch(/t\('nope.key'\) has no English string/);
    expect(text).toMatch(/hard-coded title="Close window"/);
    expect(text).toMatch(/hard-coded text "Hello world"/);
  });

  it('sees hard-coded text however it is written: multi-line JSX, beside expressions, in branches, in toasts', () => {
    const p = fixture(
      { a: { b: 'B' } },
      { a: { b: 'B' } },
      {
        'C.tsx': [
          'export const C = ({ n, busy }: { n: number; busy: boolean }) => (',
          '  <div>',
          '    <p>',
          '      A long sentence that Prettier put on its own line',
          '    </p>',
          '    <span>Tokens used: {n}</span>',
          "    <button title={'Delete session'}>{busy ? 'Stop' : t('a.b')}</button>",
          '    <i className="not-user-facing" data-x="Also not">{t(`a.${n}`)}</i>',
          '  </div>',
          ');',
        ].join('\n'),
        'd.ts': [
          "export const f = (s: { showToast(m: string): void }) => s.showToast('Could not save');",
          'const k = t(`missing.${x}`);',
        ].join('\n'),
      },
    );
    const text = p.join('\n');
    expect(text).toMatch(/C.tsx:4: hard-coded text "A long sentence/);
    expect(text).toMatch(/C.tsx:6: hard-coded text "Tokens used:"/);
    expect(text).toMatch(/C.tsx:7: hard-coded title="Delete session"/);
    expect(text).toMatch(/C.tsx:7: hard-coded text "Stop"/);
    expect(text).toMatch(/d.ts:1: hard-coded showToast\(…\) "Could not save"/);
    expect(text).toMatch(/d.ts:2: t\(`missing.…`\): no English key starts with "missing."/);
    // className / data-* attributes and a template key with a known prefix are fine.
    expect(text).not.toMatch(/Also not|not-user-facing|`a\./);
    expect(p).toHaveLength(6);
  });
});
