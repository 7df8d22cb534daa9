// Compiles the WebAssembly counter (assembly/o200k.ts, AssemblyScript) to vocab/o200k_count.wasm:
// `pnpm --filter @threadline/context build:wasm`. Run it after changing assembly/; a test
// compiles it again and fails while the committed file differs.
import { resolve } from 'node:path';
import { compileCounter } from './wasmCompile';

const out = resolve(import.meta.dirname, '../vocab/o200k_count.wasm');
const bytes = await compileCounter(out);
console.log(`o200k_count.wasm: ${bytes.length} bytes`);
