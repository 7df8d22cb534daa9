import { describe, expect, it } from 'vitest';
import { mergeSettings, SettingsPatchSchema, SettingsSchema } from '../settings';
import { isAutoThreshold } from '../values';

describe('settings patches', () => {
  it('a patch parses to exactly the fields it names (no defaults filled in)', () => {
    expect(SettingsPatchSchema.parse({ language: 'zh-CN' })).toEqual({ language: 'zh-CN' });
    expect(SettingsPatchSchema.parse({ cfpm: { preToolGate: false } })).toEqual({ cfpm: { preToolGate: false } });
    expect(SettingsPatchSchema.parse({})).toEqual({});
  });

  it('two patches in a row keep each other: language, then theme', () => {
    const base = SettingsSchema.parse({});
    const a = mergeSettings(base, SettingsPatchSchema.parse({ language: 'zh-CN' }));
    const b = mergeSettings(a, SettingsPatchSchema.parse({ theme: 'dark' }));
    expect(b).toMatchObject({ language: 'zh-CN', theme: 'dark' });
  });

  it('rejects unknown values', () => {
    expect(SettingsPatchSchema.safeParse({ theme: 'blue' }).success).toBe(false);
    expect(SettingsPatchSchema.safeParse({ language: 'fr' }).success).toBe(false);
    // Unknown keys at any level: a typo must not become an empty patch.
    expect(SettingsPatchSchema.safeParse({ colour: 'red' }).success).toBe(false);
    expect(SettingsPatchSchema.safeParse({ compaction: { autoThresold: 0.5 } }).success).toBe(false);
  });
});

describe('isAutoThreshold (the one rule: auto compaction is on for a fraction in (0, 1))', () => {
  it.each([0.01, 0.5, 0.8, 0.99])('%s turns it on', (t) => expect(isAutoThreshold(t)).toBe(true));
  it.each([0, 1, -1, 2, Number.NaN, null, undefined, '0.8'])('%s turns it off', (t) =>
    expect(isAutoThreshold(t)).toBe(false),
  );
});
