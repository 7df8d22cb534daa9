import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The compiler's options for the counter: no runtime (it allocates nothing), no assertions. */
export const ASC_FLAGS = ['-O3', '--runtime', 'stub', '--noAssert', '--use', 'abort='];

interface Asc {
  main(args: string[]): Promise<{ error: Error | null; stderr: { toString(): string } }>;
}

/** Compiles assembly/o200k.ts to `out` and returns the module's bytes. */
export async function compileCounter(out: string): Promise<Uint8Array> {
  // Loaded by name: the compiler's own typings declare AssemblyScript's globals (i32, a
  // WebAssembly of its own), which must not leak into this package's TypeScript.
  const compiler = 'assemblyscript/asc';
  const asc = ((await import(compiler)) as { default: Asc }).default;
  const source = resolve(import.meta.dirname, '../assembly/o200k.ts');
  const { error, stderr } = await asc.main([source, '-o', out, ...ASC_FLAGS]);
  if (error) throw new Error(`asc: ${error.message}\n${stderr.toString()}`);
  return readFileSync(out);
}
