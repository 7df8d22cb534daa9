// Generates the vocabulary assets (vocab/<encoding>.bin) from js-tiktoken's ranks:
// `pnpm --filter @threadline/context build:vocab`. Run it after upgrading js-tiktoken; the
// tokens test fails while an asset differs from js-tiktoken's vocabulary.
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { encodeVocab, VOCAB_KIND, vocabFromJsTiktoken, type VocabName } from '../src/tokens/vocab';

const dir = resolve(import.meta.dirname, '../vocab');
mkdirSync(dir, { recursive: true });
for (const name of ['o200k_base', 'cl100k_base'] as VocabName[]) {
  const bin = encodeVocab(vocabFromJsTiktoken(name), VOCAB_KIND[name]);
  writeFileSync(resolve(dir, `${name}.bin`), bin);
  console.log(`${name}: ${(bin.length / 1e6).toFixed(2)} MB`);
}
