// Module hooks for the turn trace (trace.ts): every function of packages/agent/src (tests aside)
// starts with a call that names its file, so the driver records, in order, which file of the
// agent each function it runs belongs to. tsx's hooks hand them the TypeScript source before they
// compile it; the TypeScript compiler's parser finds the function bodies (getters aside: reading a
// field through one is not a visit).
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src') + path.sep;

/** `code` with a trace call at the start of every function body. */
function instrument(code, rel) {
  const sf = ts.createSourceFile(rel, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const call = `globalThis.__tlTrace?.(${JSON.stringify(rel)});`;
  const edits = [];
  const visit = (node) => {
    // A getter is a field read (Session's fields are read through them): not a visit.
    if (ts.isFunctionLike(node) && node.body && !ts.isGetAccessorDeclaration(node)) {
      if (ts.isBlock(node.body)) edits.push([node.body.getStart(sf) + 1, call]);
      else {
        // An arrow with an expression body: `(trace(), expr)`.
        edits.push([node.body.getStart(sf), `(${call.slice(0, -1)}, `]);
        edits.push([node.body.getEnd(), ')']);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  edits.sort((a, b) => b[0] - a[0]);
  let out = code;
  for (const [at, text] of edits) out = out.slice(0, at) + text + out.slice(at);
  return out;
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (!url.startsWith('file:')) return result;
  const file = fileURLToPath(url);
  if (!file.startsWith(SRC) || file.includes(`${path.sep}__tests__${path.sep}`) || !/\.tsx?$/.test(file)) return result;
  if (result.source == null) return result;
  const rel = file.slice(SRC.length);
  return { ...result, source: instrument(String(result.source), rel) };
}
