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

/** `--name value`, `--name=value` and `--flag`; anything unknown is an InputError. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const out: ParsedArgs = { positional: [], values: {}, flags: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      out.positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq === -1 ? undefined : eq);
    if ((FLAG_OPTIONS as readonly string[]).includes(name)) {
      if (eq !== -1) throw new InputError(`--${name} takes no value`);
      out.flags.add(name as FlagOption);
    } else if ((VALUE_OPTIONS as readonly string[]).includes(name)) {
      const v = eq === -1 ? argv[++i] : a.slice(eq + 1);
      if (v === undefined) throw new InputError(`--${name} needs a value`);
      out.values[name as ValueOption] = v;
    } else {
      throw new InputError(`unknown option --${name}`);
    }
  }
  return out;
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
