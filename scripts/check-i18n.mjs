// Fails when a locale misses a key another has, when the renderer uses a t('key') that English
// lacks (or a t(`prefix.${x}`) whose prefix no key has), or when the renderer shows the user a
// hard-coded string. Source files are parsed with the TypeScript compiler, so JSX text spread over
// lines, text beside an expression, `{busy ? 'Stop' : 'Send'}`, `title={'…'}` and toasts are all
// seen. A line may opt out with a trailing `// i18n-ignore` comment (for symbols, code).
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

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

/** Attributes a user reads or hears. */
const USER_ATTRS = new Set([
  'aria-label',
  'title',
  'placeholder',
  'alt',
  'label',
  'aria-description',
  'aria-placeholder',
]);
/** Calls whose string argument is shown to the user. */
const USER_CALLS = new Set(['showToast', 'setError', 'alert', 'confirm', 'prompt']);
const WORDY = /[A-Za-z\u4e00-\u9fff]/;

function stringText(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => s.literal.text).join(' ');
  return null;
}

/** String literals that end up as the value of an expression (branches of ?:, ||, ??, &&). */
function shownStrings(expr) {
  if (!expr) return [];
  if (ts.isParenthesizedExpression(expr)) return shownStrings(expr.expression);
  if (ts.isConditionalExpression(expr)) return [...shownStrings(expr.whenTrue), ...shownStrings(expr.whenFalse)];
  if (ts.isBinaryExpression(expr)) {
    const op = expr.operatorToken.kind;
    if (op === ts.SyntaxKind.AmpersandAmpersandToken) return shownStrings(expr.right);
    if (op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken)
      return [...shownStrings(expr.left), ...shownStrings(expr.right)];
    return [];
  }
  return stringText(expr) === null ? [] : [expr];
}

function calleeName(call) {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return null;
}

/** Problems of one source file: hard-coded user-facing strings and t() keys English lacks. */
function checkSource(file, rel, en, keyPrefixes) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const sf = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const problems = [];
  const lineOf = (node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
  const ignored = (node) => lines[lineOf(node)]?.includes('i18n-ignore');
  const report = (node, what) => {
    if (!ignored(node)) problems.push(`${rel}:${lineOf(node) + 1}: ${what}`);
  };
  const flagStrings = (exprs, where) => {
    for (const s of exprs) {
      const v = stringText(s);
      if (v !== null && WORDY.test(v)) report(s, `hard-coded ${where}"${v.trim().slice(0, 60)}"`);
    }
  };

  const visit = (node) => {
    if (ts.isJsxText(node)) {
      const v = node.text.replace(/\s+/g, ' ').trim();
      if (WORDY.test(v)) report(node, `hard-coded text "${v.slice(0, 60)}"`);
    } else if (ts.isJsxAttribute(node)) {
      const name = node.name.getText(sf);
      const init = node.initializer;
      if (USER_ATTRS.has(name) && init) {
        if (ts.isStringLiteral(init)) flagStrings([init], `${name}=`);
        else if (ts.isJsxExpression(init)) flagStrings(shownStrings(init.expression), `${name}=`);
      }
      return; // other attributes (className, data-*, key…) are not read by the user
    } else if (
      ts.isJsxExpression(node) &&
      node.parent &&
      (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))
    ) {
      flagStrings(shownStrings(node.expression), 'text ');
    } else if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      const arg = node.arguments[0];
      if (name === 't' && arg) {
        const key = stringText(arg);
        if (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)) {
          if (!(key in en) && !keyPrefixes.plural.has(key)) report(arg, `t('${key}') has no English string`);
        } else if (ts.isTemplateExpression(arg)) {
          const prefix = arg.head.text;
          if (prefix && !keyPrefixes.all.some((k) => k.startsWith(prefix)))
            report(arg, `t(\`${prefix}…\`): no English key starts with "${prefix}"`);
        }
      } else if (name && USER_CALLS.has(name) && arg) {
        flagStrings(shownStrings(arg), `${name}(…) `);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return problems;
}

/** Returns a list of problems (empty = ok). */
export function checkI18n({ localesDir, sourceDir }) {
  const problems = [];
  const files = readdirSync(localesDir).filter((f) => f.endsWith('.json'));
  if (!files.includes('en.json') || !files.includes('zh-CN.json'))
    problems.push(`${localesDir}: en.json and zh-CN.json are both required`);
  const locales = Object.fromEntries(
    files.map((f) => [f.replace(/\.json$/, ''), flatten(JSON.parse(readFileSync(join(localesDir, f), 'utf8')))]),
  );
  const all = new Set(Object.values(locales).flatMap((l) => Object.keys(l)));
  for (const [lang, keys] of Object.entries(locales)) {
    for (const k of all) if (!(k in keys)) problems.push(`${lang}: missing key ${k}`);
    for (const [k, v] of Object.entries(keys))
      if (typeof v !== 'string' || v.trim() === '') problems.push(`${lang}: empty value for ${k}`);
  }
  const en = locales.en ?? {};
  const keyPrefixes = {
    all: Object.keys(en),
    plural: new Set(Object.keys(en).map((k) => k.replace(/_(zero|one|two|few|many|other)$/, ''))),
  };
  for (const file of walk(sourceDir, ['.ts', '.tsx']))
    problems.push(...checkSource(file, relative(process.cwd(), file), en, keyPrefixes));
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
