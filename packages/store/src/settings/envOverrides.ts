// Environment overrides of settings. THREADLINE_* wins over the AGIME_* aliases
// kept from the seed. An invalid value is an error naming the variable and what it accepts: a
// silently ignored override is worse than a refused start.
import { parseVisibilityAlias, STRATEGIES, type SettingsPatch } from '@threadline/protocol';
import { StoreError, type EnvOverride } from '../types';

type Env = Record<string, string | undefined>;

interface Rule {
  variables: readonly string[]; // in priority order
  path: string;
  accepted: string;
  parse(raw: string): unknown; // undefined = invalid
  apply(patch: SettingsPatch, value: unknown): void;
}

const BOOL_TRUE = ['on', 'true', '1', 'yes', 'enabled'];
const BOOL_FALSE = ['off', 'false', '0', 'no', 'disabled'];
const VISIBILITY_ACCEPTED = 'off|none|disable|disabled|0, brief|1, debug|verbose|full|2';

const RULES: readonly Rule[] = [
  {
    variables: ['THREADLINE_COMPACTION_STRATEGY', 'AGIME_CONTEXT_COMPACTION_STRATEGY'],
    path: 'compaction.strategy',
    accepted: STRATEGIES.join(', '),
    parse: (raw) => (STRATEGIES as readonly string[]).find((s) => s === raw.trim().toLowerCase()),
    apply: (p, v) => void (p.compaction = { ...p.compaction, strategy: v as (typeof STRATEGIES)[number] }),
  },
  {
    variables: ['THREADLINE_AUTO_COMPACT_THRESHOLD', 'AGIME_AUTO_COMPACT_THRESHOLD'],
    path: 'compaction.autoThreshold',
    accepted: 'a number from -1 to 2, e.g. 0.8 (≤ 0 or ≥ 1 disables auto compaction)',
    parse: (raw) => {
      const n = raw.trim() === '' ? NaN : Number(raw.trim());
      return Number.isFinite(n) && n >= -1 && n <= 2 ? n : undefined;
    },
    apply: (p, v) => void (p.compaction = { ...p.compaction, autoThreshold: v as number }),
  },
  {
    variables: ['THREADLINE_CFPM_RUNTIME_VISIBILITY', 'AGIME_CFPM_RUNTIME_VISIBILITY'],
    path: 'cfpm.runtimeVisibility',
    accepted: VISIBILITY_ACCEPTED,
    parse: (raw) => parseVisibilityAlias(raw) ?? undefined,
    apply: (p, v) => void (p.cfpm = { ...p.cfpm, runtimeVisibility: v as 'off' | 'brief' | 'debug' }),
  },
  {
    variables: ['THREADLINE_CFPM_PRE_TOOL_GATE', 'AGIME_CFPM_PRE_TOOL_GATE'],
    path: 'cfpm.preToolGate',
    accepted: `${BOOL_TRUE.join('|')} or ${BOOL_FALSE.join('|')}`,
    parse: (raw) => {
      const v = raw.trim().toLowerCase();
      return BOOL_TRUE.includes(v) ? true : BOOL_FALSE.includes(v) ? false : undefined;
    },
    apply: (p, v) => void (p.cfpm = { ...p.cfpm, preToolGate: v as boolean }),
  },
  {
    variables: ['THREADLINE_CFPM_TOOL_GATE_VISIBILITY', 'AGIME_CFPM_TOOL_GATE_VISIBILITY'],
    path: 'cfpm.toolGateVisibility',
    accepted: VISIBILITY_ACCEPTED,
    parse: (raw) => parseVisibilityAlias(raw) ?? undefined,
    apply: (p, v) => void (p.cfpm = { ...p.cfpm, toolGateVisibility: v as 'off' | 'brief' | 'debug' }),
  },
  {
    variables: ['THREADLINE_TOOL_OUTPUT_MAX_TOKENS'],
    path: 'toolOutput.maxTokens',
    accepted: 'a whole number from 1 to 1000000',
    parse: (raw) => {
      const t = raw.trim();
      const n = /^\d+$/.test(t) ? Number(t) : NaN;
      return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : undefined;
    },
    apply: (p, v) => void (p.toolOutput = { ...p.toolOutput, maxTokens: v as number }),
  },
  {
    variables: ['THREADLINE_LANGUAGE'],
    path: 'language',
    accepted: 'en, zh-CN (also en-US, zh, zh_CN, zh-Hans)',
    parse: (raw) => {
      const v = raw.trim().toLowerCase().replace('_', '-');
      if (v === 'en' || v.startsWith('en-')) return 'en';
      if (v === 'zh' || v === 'zh-cn' || v === 'zh-hans') return 'zh-CN';
      return undefined;
    },
    apply: (p, v) => void (p.language = v as 'en' | 'zh-CN'),
  },
];

/** Every variable that overrides a setting, THREADLINE_* first. */
export const ENV_VARIABLES: readonly string[] = RULES.flatMap((r) => r.variables);

/** Parses the overrides; throws StoreError('invalid_env') naming the variable and the accepted values. */
export function parseEnvOverrides(env: Env): { patch: SettingsPatch; sources: EnvOverride[] } {
  const patch: SettingsPatch = {};
  const sources: EnvOverride[] = [];
  for (const rule of RULES) {
    // An empty value counts as unset, as shells make it easy to export VAR= by accident.
    const variable = rule.variables.find((v) => (env[v] ?? '').trim() !== '');
    if (!variable) continue;
    const raw = env[variable] as string;
    const value = rule.parse(raw);
    if (value === undefined) {
      throw new StoreError(
        'invalid_env',
        `Invalid value ${JSON.stringify(raw)} for ${variable} (setting ${rule.path}); accepted: ${rule.accepted}.`,
      );
    }
    rule.apply(patch, value);
    sources.push({ variable, path: rule.path, raw });
  }
  return { patch, sources };
}
