// Settings as key → JSON rows, one row per top-level section, so a section that later fails
// validation falls back to its defaults without losing the others.
import {
  mergeSettings,
  SettingsPatchSchema,
  SettingsSchema,
  type Settings,
  type SettingsPatch,
} from '@threadline/protocol';
import type { SettingsRepo, EnvOverride } from '../types';
import { json, parseInput, type RepoContext } from '../repos/context';

type SectionKey = keyof Settings;
const SECTIONS = Object.keys(SettingsSchema.shape) as SectionKey[];

export function createSettingsRepo(
  ctx: RepoContext,
  env: { patch: SettingsPatch; sources: EnvOverride[] },
): SettingsRepo {
  const { db } = ctx;
  const all = db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings');
  const put = db.prepare<[string, string]>(
    'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
  );

  function stored(): Settings {
    const raw: Record<string, unknown> = {};
    for (const row of all.all()) {
      if (!(SECTIONS as string[]).includes(row.key)) continue;
      let value: unknown;
      try {
        value = JSON.parse(row.value);
      } catch {
        continue;
      }
      if (SettingsSchema.shape[row.key as SectionKey].safeParse(value).success) raw[row.key] = value;
    }
    return SettingsSchema.parse(raw);
  }

  const writeTx = db.transaction((next: Settings) => {
    for (const key of SECTIONS) put.run(key, json(next[key]));
  });

  const effective = (): Settings => mergeSettings(stored(), env.patch);

  return {
    get: effective,
    stored,
    set(patch: SettingsPatch): Settings {
      // Strict at every level (protocol): a typo like compaction.autoThresold is refused, not dropped.
      const valid = parseInput(SettingsPatchSchema, patch, 'settings', 'invalid_setting');
      const next = parseInput(SettingsSchema, mergeSettingsLoose(stored(), valid), 'settings', 'invalid_setting');
      writeTx.immediate(next);
      return effective();
    },
    envOverrides: () => ({ patch: structuredClone(env.patch), sources: env.sources.map((s) => ({ ...s })) }),
  };
}

/** mergeSettings throws a raw ZodError; this returns the merged input for parseInput instead. */
function mergeSettingsLoose(base: Settings, patch: SettingsPatch): unknown {
  try {
    return mergeSettings(base, patch);
  } catch {
    return {
      ...base,
      ...patch,
      compaction: { ...base.compaction, ...patch.compaction },
      cfpm: { ...base.cfpm, ...patch.cfpm },
      toolOutput: { ...base.toolOutput, ...patch.toolOutput },
      agent: { ...base.agent, ...patch.agent },
      mcp: { ...base.mcp, ...patch.mcp },
      cache: { ...base.cache, ...patch.cache },
      helpers: { ...base.helpers, ...patch.helpers },
    };
  }
}
