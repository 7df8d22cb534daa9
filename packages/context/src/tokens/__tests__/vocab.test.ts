import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getEncoding } from 'js-tiktoken';
import { encoderFor } from '../encoder';
import { RankTable } from '../bpe';
import { decodeVocab, loadVocab, VOCAB_KIND, vocabFromJsTiktoken, type VocabName } from '../vocab';
import { loadTranscripts } from '../../cli/transcripts';

/**
 * The prebuilt vocabulary (vocab/<encoding>.bin) must be js-tiktoken's, byte for byte, and the
 * encoder built on it must give js-tiktoken's ids. A failure here after a js-tiktoken upgrade:
 * `pnpm --filter @threadline/context build:vocab`.
 */
const asset = (name: VocabName) =>
  decodeVocab(readFileSync(fileURLToPath(new URL(`../../../vocab/${name}.bin`, import.meta.url))));

describe('prebuilt vocabulary asset', () => {
  it.each(['o200k_base', 'cl100k_base'] as VocabName[])(
    '%s: the asset holds js-tiktoken vocabulary, table for table',
    (name) => {
      const a = asset(name);
      const ref = vocabFromJsTiktoken(name);
      expect(a.header).toMatchObject({ encoding: name, patStr: ref.patStr, kind: VOCAB_KIND[name] });
      const ours = a.ranks.tables;
      const theirs = RankTable.build(ref.tokenBytes, ref.lengths).tables;
      for (const k of ['bytes', 'info', 'slots', 'byteToken', 'pair2'] as const) {
        const x = ours[k];
        const y = theirs[k];
        expect(
          Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength)),
          k,
        ).toBe(true);
      }
    },
  );

  it('is what a process loads (not js-tiktoken ranks)', () => {
    expect(loadVocab('o200k_base').from).toBe('asset');
  });

  it('encodes the transcripts to exactly js-tiktoken ids, and decodes them back', () => {
    const dir = fileURLToPath(new URL('../../../../../fixtures/transcripts', import.meta.url));
    const ref = getEncoding('o200k_base');
    const ours = encoderFor('gpt-4o');
    let texts = 0;
    for (const t of loadTranscripts(dir)) {
      for (const m of t.messages.slice(0, 40)) {
        const text = m.content ?? '';
        if (text === '') continue;
        const ids = ours.encode(text);
        expect(ids).toEqual(ref.encode(text, [], []));
        expect(ours.decode(ids!)).toBe(text);
        texts++;
      }
    }
    expect(texts).toBeGreaterThan(100);
    const mixed = 'naïve café — 中文字符 emoji 🙂 <|endoftext|>\n\tcode(x) => x ** 2;';
    expect(encoderFor('gpt-4').encode(mixed)).toEqual(getEncoding('cl100k_base').encode(mixed, [], []));
  });
});
