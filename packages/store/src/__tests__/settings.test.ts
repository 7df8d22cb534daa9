import Database from 'better-sqlite3';
import { DEFAULT_SETTINGS } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { parseEnvOverrides } from '../settings/envOverrides';
import { openStore } from '../openStore';
import { StoreError } from '../types';
import { useTempDir } from './helpers';

const tmp = useTempDir();

describe('settings', () => {
  it('returns defaults, persists a validated patch and merges nested sections', () => {
    const store = tmp.open();
    expect(store.settings.get()).toEqual(DEFAULT_SETTINGS);
    store.settings.set({ compaction: { strategy: 'cfpm_memory_v1' } });
    const next = store.settings.set({ compaction: { autoThreshold: 0.7 }, language: 'zh-CN' });
    expect(next.compaction).toEqual({ strategy: 'cfpm_memory_v1', autoThreshold: 0.7 });
    store.close();
    expect(tmp.open().settings.get()).toMatchObject({
      language: 'zh-CN',
      compaction: { strategy: 'cfpm_memory_v1', autoThreshold: 0.7 },
    });
  });

  it('rejects an invalid patch with the reason, and stores nothing', () => {
    const store = tmp.open();
    const attempt = () => store.settings.set({ toolOutput: { maxTokens: -5 } });
    expect(attempt).toThrow(StoreError);
    expect(attempt).toThrow(/Invalid settings: toolOutput\.maxTokens/);
    expect(() => store.settings.set({ compaction: { strategy: 'nope' as 'progressive' } })).toThrow(
      /compaction\.strategy/,
    );
    expect(() => store.settings.set({ colour: 'red' } as never)).toThrow(/Invalid settings: .*colour/);
    // A typo in a nested key is refused too, not dropped into an empty patch.
    expect(() => store.settings.set({ compaction: { autoThresold: 0.5 } } as never)).toThrow(
      /compaction.*autoThresold/,
    );
    expect(() => store.settings.set({ cfpm: { runtimeVisibilty: 'off' } } as never)).toThrow(/cfpm.*runtimeVisibilty/);
    expect(store.settings.get()).toEqual(DEFAULT_SETTINGS);
    try {
      attempt();
    } catch (e) {
      expect((e as StoreError).code).toBe('invalid_setting');
    }
  });

  it('falls back to defaults for a damaged section without losing the others', () => {
    const store = tmp.open();
    store.settings.set({ language: 'zh-CN', compaction: { strategy: 'progressive' } });
    store.close();
    const db = new Database(store.file);
    db.prepare('UPDATE settings SET value = \'{"strategy":"gone"}\' WHERE key = \'compaction\'').run();
    db.prepare("UPDATE settings SET value = 'not json' WHERE key = 'theme'").run();
    db.close();
    const again = tmp.open();
    expect(again.settings.get()).toMatchObject({
      language: 'zh-CN',
      theme: 'system',
      compaction: DEFAULT_SETTINGS.compaction,
    });
  });

  it('applies environment overrides on top of stored settings without storing them', () => {
    const store = tmp.open({
      env: { THREADLINE_LANGUAGE: 'zh_CN', AGIME_CFPM_RUNTIME_VISIBILITY: 'verbose', AGIME_CFPM_PRE_TOOL_GATE: 'off' },
    });
    store.settings.set({ language: 'en', cfpm: { runtimeVisibility: 'off' } });
    expect(store.settings.get()).toMatchObject({
      language: 'zh-CN',
      cfpm: { runtimeVisibility: 'debug', preToolGate: false },
    });
    expect(store.settings.stored()).toMatchObject({
      language: 'en',
      cfpm: { runtimeVisibility: 'off', preToolGate: true },
    });
    expect(
      store.settings
        .envOverrides()
        .sources.map((s) => s.variable)
        .sort(),
    ).toEqual(['AGIME_CFPM_PRE_TOOL_GATE', 'AGIME_CFPM_RUNTIME_VISIBILITY', 'THREADLINE_LANGUAGE']);
  });

  it('refuses to open with an invalid override, naming the variable and the accepted values', () => {
    const file = `${tmp.dir()}/x.db`;
    let err: unknown;
    try {
      openStore({ file, env: { AGIME_CFPM_RUNTIME_VISIBILITY: 'loud' } });
    } catch (e) {
      err = e;
    }
    expect((err as StoreError).code).toBe('invalid_env');
    expect((err as StoreError).message).toContain('AGIME_CFPM_RUNTIME_VISIBILITY');
    expect((err as StoreError).message).toContain('off|none|disable|disabled|0');
  });
});

describe('parseEnvOverrides', () => {
  it('maps every variable to its setting', () => {
    const { patch } = parseEnvOverrides({
      THREADLINE_COMPACTION_STRATEGY: 'priority_chain',
      THREADLINE_AUTO_COMPACT_THRESHOLD: '0.65',
      THREADLINE_CFPM_RUNTIME_VISIBILITY: 'none',
      THREADLINE_CFPM_PRE_TOOL_GATE: 'true',
      THREADLINE_CFPM_TOOL_GATE_VISIBILITY: '2',
      THREADLINE_TOOL_OUTPUT_MAX_TOKENS: '8000',
      THREADLINE_LANGUAGE: 'en',
    });
    expect(patch).toEqual({
      language: 'en',
      compaction: { strategy: 'priority_chain', autoThreshold: 0.65 },
      cfpm: { runtimeVisibility: 'off', preToolGate: true, toolGateVisibility: 'debug' },
      toolOutput: { maxTokens: 8000 },
    });
  });

  it('accepts the AGIME_* seed keys, and THREADLINE_* wins over them', () => {
    const seedOnly = parseEnvOverrides({
      AGIME_AUTO_COMPACT_THRESHOLD: '0',
      AGIME_CONTEXT_COMPACTION_STRATEGY: 'cfpm_memory_v1',
      AGIME_CFPM_RUNTIME_VISIBILITY: 'disabled',
      AGIME_CFPM_PRE_TOOL_GATE: '0',
      AGIME_CFPM_TOOL_GATE_VISIBILITY: 'full',
    });
    expect(seedOnly.patch).toEqual({
      compaction: { autoThreshold: 0, strategy: 'cfpm_memory_v1' },
      cfpm: { runtimeVisibility: 'off', preToolGate: false, toolGateVisibility: 'debug' },
    });
    const both = parseEnvOverrides({
      AGIME_CONTEXT_COMPACTION_STRATEGY: 'cfpm_memory_v1',
      THREADLINE_COMPACTION_STRATEGY: 'progressive',
    });
    expect(both.patch.compaction?.strategy).toBe('progressive');
    expect(both.sources).toEqual([
      { variable: 'THREADLINE_COMPACTION_STRATEGY', path: 'compaction.strategy', raw: 'progressive' },
    ]);
  });

  it('treats empty values as unset', () => {
    expect(parseEnvOverrides({ THREADLINE_LANGUAGE: '', AGIME_CFPM_PRE_TOOL_GATE: '  ' }).patch).toEqual({});
  });

  it.each([
    ['THREADLINE_COMPACTION_STRATEGY', 'fastest', 'legacy_segmented, cfpm_memory_v1, progressive, priority_chain'],
    ['AGIME_AUTO_COMPACT_THRESHOLD', '80%', 'a number from -1 to 2'],
    ['AGIME_AUTO_COMPACT_THRESHOLD', '80', 'a number from -1 to 2'],
    ['AGIME_CFPM_PRE_TOOL_GATE', 'maybe', 'on|true|1'],
    ['AGIME_CFPM_TOOL_GATE_VISIBILITY', 'loud', 'brief'],
    ['THREADLINE_TOOL_OUTPUT_MAX_TOKENS', '1.5', 'a whole number'],
    ['THREADLINE_LANGUAGE', 'klingon', 'zh-CN'],
  ])('rejects %s=%s with the accepted values', (variable, raw, accepted) => {
    const run = () => parseEnvOverrides({ [variable]: raw });
    expect(run).toThrow(StoreError);
    expect(run).toThrow(variable);
    expect(run).toThrow(accepted);
  });
});
