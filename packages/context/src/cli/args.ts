import { parseArgs as nodeParseArgs } from 'node:util';
import { STRATEGIES, type Strategy } from '@threadline/protocol';
import { InputError } from './transcripts';

const VALUE_OPTIONS = [
  'strategy',
  'model',
  'window',
  'target',
  'threshold',
  'instructions',
  'summary-text',
  'provider-url',
  'transcripts',
] as const;
const FLAG_OPTIONS = ['manual', 'json', 'quick'] as const;
type ValueOption = (typeof VALUE_OPTIONS)[number];
type FlagOption = (typeof FLAG_OPTIONS)[number];

export interface ParsedArgs {
  positional: string[];
  values: Partial<Record<ValueOption, string>>;
  flags: Set<FlagOption>;
}

export interface CliArgs<V extends string, F extends string> {
  positional: string[];
  values: Partial<Record<V, string>>;
  flags: Set<F>;
}

/**
 * `--name value`, `--name=value` and `--flag`, read by node:util parseArgs; anything unknown is
 * `fail(message)`. Its tokens give the messages their wording ("--x needs a value", "--x takes no
 * value", "unknown option --x"); a word with one dash (`-5`, `-x`) is a positional argument.
 */
export function readArgs<V extends string, F extends string>(
  argv: readonly string[],
  spec: { values: readonly V[]; flags: readonly F[] },
  fail: (message: string) => Error,
): CliArgs<V, F> {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const v of spec.values) options[v] = { type: 'string' };
  for (const f of spec.flags) options[f] = { type: 'boolean' };
  const { tokens } = nodeParseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const out: CliArgs<V, F> = { positional: [], values: {}, flags: new Set() };
  let lastIndex = -1;
  for (const t of tokens) {
    if (t.kind === 'option-terminator') throw fail('unknown option --');
    if (t.kind === 'positional') out.positional.push(t.value);
    else if (!t.rawName.startsWith('--')) {
      // One short option per letter of `-abc`: the word is one positional argument.
      if (t.index !== lastIndex) out.positional.push(argv[t.index]!);
    } else if ((spec.flags as readonly string[]).includes(t.name)) {
      if (t.inlineValue) throw fail(`--${t.name} takes no value`);
      out.flags.add(t.name as F);
    } else if ((spec.values as readonly string[]).includes(t.name)) {
      if (t.value === undefined) throw fail(`--${t.name} needs a value`);
      out.values[t.name as V] = t.value;
    } else {
      throw fail(`unknown option ${t.rawName}`);
    }
    lastIndex = t.index;
  }
  return out;
}

/** The options of `count` and `compact`; anything unknown is an InputError. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  return readArgs(argv, { values: VALUE_OPTIONS, flags: FLAG_OPTIONS }, (m) => new InputError(m));
}

export function strategyArg(v: string | undefined): Strategy {
  if (v === undefined) return 'legacy_segmented';
  if (!(STRATEGIES as readonly string[]).includes(v))
    throw new InputError(`unknown strategy '${v}' (expected one of: ${STRATEGIES.join(', ')})`);
  return v as Strategy;
}

export function positiveIntArg(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new InputError(`--${name} must be a positive integer of tokens, got '${v}'`);
  return n;
}

export function thresholdArg(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new InputError(`--threshold must be a number between 0 and 1, got '${v}'`);
  return n;
}
