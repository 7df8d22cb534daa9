// Fails when a locale misses a key another has, when the renderer uses a t('key') that English
// lacks, or when a .tsx file shows the user a hard-coded string (JSX text or a user-facing
// attribute). A line may opt out with a trailing `// i18n-ignore` comment (for symbols, code).
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export function flatten(obj, prefix = '') {
  const out = {};
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object') Object.assign(out, flatten(v, key));
    else out[key] = v;
  }
  return out;
}

function walk(dir, exts) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === '__tests__') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p, exts));
    else if (exts.some((e) => name.endsWith(e))) out.push(p);
  }
  return out;
}

const USER_ATTRS = /\b(aria-label|title|placeholder|alt|label)=["']([^"']*[A-Za-z\u4e00-\u9fff][^"']*)["']/g;
const JSX_TEXT = />([^<>{}`]*[A-Za-z\u4e00-\u9fff][^<>{}`]*)</g;
const T_CALL = /\bt\(\s*['"]([a-zA-Z0-9_.-]+)['"]/g;

/** Returns a list of problems (empty = ok). */
export function checkI18n({ localesDir, sourceDir }) {
  const problems = [];
  const files = readdirSync(localesDir).filter((f) => f.endsWith('.json'));
  if (!files.includes('en.json') || !files.includes('zh-CN.json')) problems.push(`${localesDir}: en.json and zh-CN.json are both required`);
  const locales = Object.fromEntries(files.map((f) => [f.replace(/\.json$/, ''), flatten(JSON.parse(readFileSync(join(localesDir, f), 'utf8')))]));
  const all = new Set(Object.values(locales).flatMap((l) => Object.keys(l)));
  for (const [lang, keys] of Object.entries(locales)) {
    for (const k of all) if (!(k in keys)) problems.push(`${lang}: missing key ${k}`);
    for (const [k, v] of Object.entries(keys)) if (typeof v !== 'string' || v.trim() === '') problems.push(`${lang}: empty value for ${k}`);
  }
  const en = locales.en ?? {};
  const pluralBase = new Set(Object.keys(en).map((k) => k.replace(/_(zero|one|two|few|many|other)$/, '')));
  for (const file of walk(sourceDir, ['.ts', '.tsx'])) {
    const rel = relative(process.cwd(), file);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (line.includes('i18n-ignore')) return;
      for (const m of line.matchAll(T_CALL)) {
        if (!(m[1] in en) && !pluralBase.has(m[1])) problems.push(`${rel}:${i + 1}: t('${m[1]}') has no English string`);
      }
      if (!file.endsWith('.tsx')) return;
      const trimmed = line.trim();
      if (trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('import ')) return;
      for (const m of line.matchAll(USER_ATTRS)) problems.push(`${rel}:${i + 1}: hard-coded ${m[1]}="${m[2]}"`);
      for (const m of line.matchAll(JSX_TEXT)) {
        const text = m[1].trim();
        // `a < b && c > d` in expressions is not JSX text; require something word-like.
        if (!text || /[=&|;()]/.test(text) || /^[A-Za-z_$][\w$.]*$/.test(text) === false && !/\s|[\u4e00-\u9fff]/.test(text)) continue;
        if (/^[A-Za-z_$][\w$]*$/.test(text) && line.includes(`<${text}`)) continue;
        problems.push(`${rel}:${i + 1}: hard-coded text "${text}"`);
      }
    });
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), '../..');
  const localesDir = join(root, 'apps/desktop/src/renderer/src/i18n/locales');
  const sourceDir = join(root, 'apps/desktop/src/renderer/src');
  if (!existsSync(localesDir)) {
    console.error(`i18n: no locales at ${localesDir}`);
    process.exit(1);
  }
  const problems = checkI18n({ localesDir, sourceDir });
  if (problems.length) {
    console.error(`i18n: ${problems.length} problem(s)`);
    for (const p of problems.slice(0, 100)) console.error(`  ${p}`);
    process.exit(1);
  }
  const n = Object.keys(flatten(JSON.parse(readFileSync(join(localesDir, 'en.json'), 'utf8')))).length;
  console.log(`i18n ok: ${n} keys in en and zh-CN, no hard-coded strings`);
}
