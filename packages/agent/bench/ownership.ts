// Issue 41's structure figures, counted on the source with the TypeScript parser (no run):
// - direct writes to a session's fields from outside the class that owns them: assignments,
//   ++/--, and set/delete/clear calls on a field, made on anything but `this`, in any file of
//   packages/agent/src (tests aside) other than the owner's;
// - builders of the pending tool-call shape: object literals (in the agent, protocol and renderer
//   sources) that lay out three or more of its optional card fields (access, gate, sandbox, diff,
//   rules, rule), each present only when set: `...(x ? { x } : {})`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../../..');
const AGENT = join(ROOT, 'packages/agent/src');
/** The class that owns a session's in-memory state (the first one found, by file). */
const OWNERS = [
  { file: 'session/session.ts', cls: 'Session' },
  { file: 'turn/sessionRuntime.ts', cls: 'SessionRuntime' },
];
const CARD_FIELDS = new Set(['access', 'gate', 'sandbox', 'diff', 'rules', 'rule']);

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !/(^|\/)__tests__\//.test(f) && !/\.test\.tsx?$/.test(f))
    .map((f) => join(dir, f));
}

const parse = (file: string): ts.SourceFile =>
  ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (c) => walk(c, visit));
}

function ownerFields(): { file: string; fields: Set<string> } {
  for (const o of OWNERS) {
    let sf: ts.SourceFile;
    try {
      sf = parse(join(AGENT, o.file));
    } catch {
      continue;
    }
    const fields = new Set<string>();
    walk(sf, (n) => {
      if (ts.isClassDeclaration(n) && n.name?.text === o.cls)
        for (const m of n.members) if (ts.isPropertyDeclaration(m) && ts.isIdentifier(m.name)) fields.add(m.name.text);
    });
    if (fields.size) return { file: join(AGENT, o.file), fields };
  }
  throw new Error('no session owner class found');
}

const ASSIGN = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.PlusEqualsToken,
  ts.SyntaxKind.MinusEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

/** `x.field` on anything but `this`, with `field` one of the owner's. */
const fieldOf = (e: ts.Expression, fields: Set<string>): boolean =>
  ts.isPropertyAccessExpression(e) && e.expression.kind !== ts.SyntaxKind.ThisKeyword && fields.has(e.name.text);

export function directWrites(): { count: number; sites: string[] } {
  const owner = ownerFields();
  const sites: string[] = [];
  for (const file of sources(AGENT)) {
    if (file === owner.file) continue;
    const sf = parse(file);
    walk(sf, (n) => {
      let hit = false;
      if (ts.isBinaryExpression(n) && ASSIGN.has(n.operatorToken.kind)) hit = fieldOf(n.left, owner.fields);
      else if (
        (ts.isPostfixUnaryExpression(n) || ts.isPrefixUnaryExpression(n)) &&
        ts.isPropertyAccessExpression(n.operand)
      )
        hit =
          (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken) &&
          fieldOf(n.operand, owner.fields);
      else if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression))
        hit =
          ['set', 'delete', 'clear'].includes(n.expression.name.text) && fieldOf(n.expression.expression, owner.fields);
      if (hit) sites.push(`${relative(AGENT, file)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`);
    });
  }
  return { count: sites.length, sites };
}

/** The card fields an object literal lays out only when set. */
function cardKeys(o: ts.ObjectLiteralExpression, inner = false): string[] {
  const keys: string[] = [];
  for (const p of o.properties) {
    if (inner && (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && ts.isIdentifier(p.name))
      keys.push(p.name.text);
    if (ts.isSpreadAssignment(p)) {
      let e = p.expression;
      while (ts.isParenthesizedExpression(e)) e = e.expression;
      if (ts.isConditionalExpression(e)) {
        let t = e.whenTrue;
        while (ts.isParenthesizedExpression(t)) t = t.expression;
        if (ts.isObjectLiteralExpression(t)) keys.push(...cardKeys(t, true));
      }
    }
  }
  return keys.filter((k) => CARD_FIELDS.has(k));
}

export function pendingBuilders(): { count: number; sites: string[] } {
  const dirs = ['packages/agent/src', 'packages/protocol/src', 'apps/desktop/src/renderer/src'].map((d) =>
    join(ROOT, d),
  );
  const sites: string[] = [];
  for (const file of dirs.flatMap(sources)) {
    const sf = parse(file);
    walk(sf, (n) => {
      if (ts.isObjectLiteralExpression(n) && new Set(cardKeys(n)).size >= 3)
        sites.push(`${relative(ROOT, file)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`);
    });
  }
  return { count: sites.length, sites };
}

export function printOwnership(): void {
  const w = directWrites();
  const b = pendingBuilders();
  console.log('structure (counted on the source, TypeScript parser)');
  console.log(`  direct writes to a session's fields from outside its owner: ${w.count}`);
  for (const s of w.sites) console.log(`    ${s}`);
  console.log(`  builders of the pending tool-call shape: ${b.count}`);
  for (const s of b.sites) console.log(`    ${s}`);
}

if (process.argv[1] === import.meta.filename) printOwnership();
