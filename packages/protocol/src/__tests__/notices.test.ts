/**
 * parseNotice is total: whatever the text, it returns a valid parsed notice or null, and never
 * throws. Fuzzed with a seeded PRNG so a failure reproduces.
 */
import { describe, expect, it } from 'vitest';
import {
  COMPACTION_NOTICE_PREFIX,
  CompactionNoticePayloadSchema,
  ERROR_NOTICE_PREFIX,
  ErrorNoticePayloadSchema,
  GATE_NOTICE_PREFIX,
  GateNoticePayloadSchema,
  MAX_NOTICE_CHARS,
  RUNTIME_NOTICE_PREFIX,
  RuntimeNoticePayloadSchema,
  formatNotice,
  parseNotice,
  type ParsedNotice,
} from '../notices';

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALID = {
  runtime: {
    version: 'v1',
    verbosity: 'debug',
    reason: 'turn',
    mode: 'merge',
    acceptedCount: 2,
    rejectedCount: 1,
    prunedCount: 0,
    factCount: 5,
    rejectedReasonBreakdown: { duplicate: 1 },
  },
  gate: {
    version: 'v1',
    verbosity: 'brief',
    action: 'rewrite_known_folder_probe',
    tool: 'shell',
    target: 'Desktop',
    path: 'C:\\Users\\a\\Desktop',
    originalCommand: 'ls ~/Desktop',
    rewrittenCommand: 'ls C:\\Users\\a\\Desktop',
  },
  compaction: {
    version: 'v1',
    type: 'compacted',
    trigger: 'manual',
    strategy: 'cfpm_memory_v1',
    percent: 81.5,
    tokensBefore: 9000,
    tokensAfter: 3000,
  },
  error: { version: 'v1', type: 'doom_loop', tool: 'shell', limit: 3 },
} as const;
const PREFIXES = {
  runtime: RUNTIME_NOTICE_PREFIX,
  gate: GATE_NOTICE_PREFIX,
  compaction: COMPACTION_NOTICE_PREFIX,
  error: ERROR_NOTICE_PREFIX,
} as const;
const SCHEMAS = {
  runtime: RuntimeNoticePayloadSchema,
  gate: GateNoticePayloadSchema,
  compaction: CompactionNoticePayloadSchema,
  error: ErrorNoticePayloadSchema,
} as const;
const KINDS = ['runtime', 'gate', 'compaction', 'error'] as const;

/** The oracle: a non-null result is one of the three shapes and its payload passes its schema. */
function checkTotal(text: unknown): ParsedNotice | null {
  let out: ParsedNotice | null = null;
  expect(() => {
    out = parseNotice(text);
  }).not.toThrow();
  if (out !== null) {
    const parsed = out as ParsedNotice;
    expect(KINDS).toContain(parsed.type);
    expect(SCHEMAS[parsed.type].safeParse(parsed.payload).success).toBe(true);
  }
  return out;
}

const ALPHABET = [
  '{',
  '}',
  '[',
  ']',
  '"',
  ':',
  ',',
  '\\',
  ' ',
  '\n',
  '0',
  '1',
  '-',
  'e',
  'a',
  'v',
  '\u0000',
  '\ud83d',
  '😀',
  '中',
  'null',
  'true',
  '1e999',
];
function randomText(rand: () => number, max: number): string {
  let s = '';
  const n = Math.floor(rand() * max);
  for (let i = 0; i < n; i++)
    s +=
      rand() < 0.5 ? ALPHABET[Math.floor(rand() * ALPHABET.length)] : String.fromCharCode(Math.floor(rand() * 0xffff));
  return s;
}

const WRONG_VALUES: unknown[] = [null, -1, 1.5, '1', true, [], {}, 'v2', 'loud', '', 1e308, { a: 'b' }, [1, 2]];
function mutatePayload(rand: () => number, payload: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...payload };
  const keys = Object.keys(copy);
  const key = keys[Math.floor(rand() * keys.length)]!;
  const op = Math.floor(rand() * 3);
  if (op === 0) delete copy[key];
  else if (op === 1) copy[key] = WRONG_VALUES[Math.floor(rand() * WRONG_VALUES.length)];
  else copy[`extra_${Math.floor(rand() * 9)}`] = WRONG_VALUES[Math.floor(rand() * WRONG_VALUES.length)];
  return copy;
}
function mutateText(rand: () => number, text: string): string {
  const i = Math.floor(rand() * text.length);
  const op = Math.floor(rand() * 4);
  if (op === 0) return text.slice(0, i) + text.slice(i + 1);
  if (op === 1) return text.slice(0, i) + ALPHABET[Math.floor(rand() * ALPHABET.length)] + text.slice(i);
  if (op === 2) return text.slice(0, i);
  return text.slice(0, i) + text.slice(i, i + 5) + text.slice(i);
}

describe('parseNotice', () => {
  it('parses each valid notice back to its payload', () => {
    for (const kind of KINDS) {
      expect(checkTotal(formatNotice(PREFIXES[kind], VALID[kind]))).toEqual({ type: kind, payload: VALID[kind] });
    }
  });

  it('never throws on random text, bare or behind a real prefix (3000 cases)', () => {
    const rand = prng(1);
    for (let i = 0; i < 3000; i++) {
      const prefix = rand() < 0.6 ? `${PREFIXES[KINDS[i % 3]!]} ` : '';
      checkTotal(prefix + randomText(rand, 80));
    }
  });

  it('mutated valid payloads parse only when still valid (3000 cases)', () => {
    const rand = prng(2);
    let nulls = 0;
    for (let i = 0; i < 3000; i++) {
      const kind = KINDS[i % 3]!;
      const payload = mutatePayload(rand, { ...VALID[kind] });
      const text =
        rand() < 0.5 ? formatNotice(PREFIXES[kind], payload) : mutateText(rand, formatNotice(PREFIXES[kind], payload));
      const out = checkTotal(text);
      if (out === null) nulls++;
      else expect(out.type).toBe(kind);
    }
    expect(nulls).toBeGreaterThan(1000); // most mutations break the contract and must be refused
  });

  it('wrong types and missing fields give null', () => {
    const bad: Array<[keyof typeof VALID, Record<string, unknown>]> = [
      ['runtime', { ...VALID.runtime, acceptedCount: -1 }],
      ['runtime', { ...VALID.runtime, acceptedCount: 1.5 }],
      ['runtime', { ...VALID.runtime, acceptedCount: '2' }],
      ['runtime', { ...VALID.runtime, mode: 'explode' }],
      ['runtime', { ...VALID.runtime, version: 'v2' }],
      ['runtime', { ...VALID.runtime, rejectedReasonBreakdown: { duplicate: 'many' } }],
      ['gate', { ...VALID.gate, target: 'Pictures' }],
      ['gate', { ...VALID.gate, action: 'delete_everything' }],
      ['compaction', { ...VALID.compaction, type: 'exploded' }],
      ['compaction', { ...VALID.compaction, tokensBefore: 'lots' }],
    ];
    for (const [kind, payload] of bad) expect(checkTotal(formatNotice(PREFIXES[kind], payload))).toBeNull();
    const { reason: _r, ...noReason } = VALID.runtime;
    expect(checkTotal(formatNotice(RUNTIME_NOTICE_PREFIX, noReason))).toBeNull();
    expect(
      checkTotal(
        `${RUNTIME_NOTICE_PREFIX} ${JSON.stringify(VALID.runtime).replace('"acceptedCount":2', '"acceptedCount":1e999')}`,
      ),
    ).toBeNull();
    expect(
      checkTotal(`${COMPACTION_NOTICE_PREFIX} ${JSON.stringify(VALID.compaction).replace('81.5', '1e999')}`),
    ).toBeNull();
  });

  it('unknown or altered prefixes give null', () => {
    const json = JSON.stringify(VALID.runtime);
    for (const prefix of [
      '[CFPM_RUNTIME_V2]',
      '[cfpm_runtime_v1]',
      'CFPM_RUNTIME_V1',
      '[CFPM_RUNTIME_V1',
      '[SOMETHING_ELSE]',
      '',
      'x [CFPM_RUNTIME_V1]',
    ]) {
      expect(checkTotal(`${prefix} ${json}`)).toBeNull();
    }
  });

  it('huge payloads give null; one exactly at the limit still parses', () => {
    const at = (n: number) => formatNotice(RUNTIME_NOTICE_PREFIX, { ...VALID.runtime, reason: 'x'.repeat(n) });
    const fill = MAX_NOTICE_CHARS - at(0).length;
    expect(at(fill).length).toBe(MAX_NOTICE_CHARS);
    expect(checkTotal(at(fill))?.type).toBe('runtime');
    expect(checkTotal(at(fill + 1))).toBeNull();
    expect(
      checkTotal(formatNotice(RUNTIME_NOTICE_PREFIX, { ...VALID.runtime, reason: 'x'.repeat(MAX_NOTICE_CHARS) })),
    ).toBeNull();
    expect(checkTotal(`${GATE_NOTICE_PREFIX} ${'['.repeat(MAX_NOTICE_CHARS - 40)}`)).toBeNull();
    expect(checkTotal(`${GATE_NOTICE_PREFIX} ${'['.repeat(5_000_000)}`)).toBeNull();
  });

  it('deeply nested JSON under the limit gives null without throwing', () => {
    const depth = Math.floor((MAX_NOTICE_CHARS - 100) / 7);
    const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    expect(checkTotal(`${RUNTIME_NOTICE_PREFIX} ${nested}`)).toBeNull();
  });

  it('non-strings give null', () => {
    for (const v of [
      undefined,
      null,
      42,
      {},
      [],
      true,
      Symbol('x'),
      () => 'x',
      new String(`${RUNTIME_NOTICE_PREFIX} ${JSON.stringify(VALID.runtime)}`),
    ]) {
      expect(checkTotal(v)).toBeNull();
    }
  });

  it('a __proto__ key does not pollute objects', () => {
    const text = `${RUNTIME_NOTICE_PREFIX} ${JSON.stringify(VALID.runtime).replace('{', '{"__proto__":{"polluted":1},')}`;
    const out = checkTotal(text);
    expect(out?.type).toBe('runtime');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
