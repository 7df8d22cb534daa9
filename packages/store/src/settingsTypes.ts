// The settings part of @threadline/store's surface;
// types.ts re-exports it with the rest.
import type { Settings, SettingsPatch } from '@threadline/protocol';

export interface EnvOverride {
  /** The variable that set it, e.g. THREADLINE_LANGUAGE or AGIME_CFPM_RUNTIME_VISIBILITY. */
  variable: string;
  /** Dotted settings path, e.g. 'cfpm.runtimeVisibility'. */
  path: string;
  raw: string;
}

export interface SettingsRepo {
  /** Stored settings with defaults, then environment overrides applied. */
  get(): Settings;
  /** Stored settings only (what the settings screen edits). */
  stored(): Settings;
  /** Validates the patch (zod), merges into the stored settings, returns the effective settings. */
  set(patch: SettingsPatch): Settings;
  /** What the environment overrides (so the UI can say "set by THREADLINE_…"). */
  envOverrides(): { patch: SettingsPatch; sources: EnvOverride[] };
}
