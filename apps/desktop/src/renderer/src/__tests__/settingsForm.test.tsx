import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { Settings, SettingsPatch } from '@threadline/protocol';
import i18n from '../i18n';
import { SettingsPage } from '../components/SettingsPage';
import { useAppStore } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { profile, settings } from './fixtures';

/** Each typed setting: a value its protocol schema refuses (and the sentence), one it takes (and the patch). */
const CASES: {
  tab: 'general' | 'context' | 'usage';
  testId: string;
  label: string;
  bad: string;
  sentence: [string, Record<string, string>];
  good: string;
  patch: SettingsPatch;
  /** A text area applies on blur (Enter is a new line there). */
  multiline?: boolean;
}[] = [
  {
    tab: 'context',
    testId: 'threshold-input',
    label: 'settings.context.threshold',
    bad: '100',
    sentence: ['settings.context.thresholdInvalid', {}],
    good: '75',
    patch: { compaction: { autoThreshold: 0.75 } },
  },
  {
    tab: 'context',
    testId: 'tool-output-input',
    label: 'settings.context.toolOutput',
    bad: '2.5',
    sentence: ['settings.context.toolOutputInvalid', {}],
    good: '8000',
    patch: { toolOutput: { maxTokens: 8000 } },
  },
  {
    tab: 'usage',
    testId: 'cache-ttl-input',
    label: 'cost.settings.ttl',
    bad: '0',
    sentence: ['cost.settings.ttlInvalid', {}],
    good: '30',
    patch: { cache: { ttlMinutes: 30 } },
  },
  {
    tab: 'usage',
    testId: 'cache-warn-input',
    label: 'cost.settings.warnAbove',
    bad: '',
    sentence: ['cost.settings.warnAboveInvalid', {}],
    good: '50000',
    patch: { cache: { warnAboveTokens: 50_000 } },
  },
  {
    tab: 'general',
    testId: 'default-folder',
    label: 'settings.general.defaultFolder',
    bad: 'projects',
    sentence: ['folder.errors.absolute', {}],
    good: '~/projects',
    patch: { agent: { defaultWorkingFolder: '~/projects' } },
  },
  {
    tab: 'general',
    testId: 'env-passthrough',
    label: 'settings.general.envPassthrough',
    bad: 'HF_TOKEN, not-a-name',
    sentence: ['settings.general.envNameError', { name: 'not-a-name' }],
    good: 'HF_TOKEN SSH_AUTH_SOCK',
    patch: { agent: { envPassthrough: ['HF_TOKEN', 'SSH_AUTH_SOCK'] } },
  },
  {
    tab: 'general',
    testId: 'sandbox-home-folders',
    label: 'settings.sandbox.homeFolders',
    bad: '~/datasets, relative/folder',
    sentence: ['settings.sandbox.folderError', { name: 'relative/folder' }],
    good: '~/datasets, /opt/My Data',
    patch: { sandbox: { homeFolders: ['~/datasets', '/opt/My Data'] } },
  },
  {
    tab: 'general',
    testId: 'sandbox-network-domains',
    label: 'settings.sandbox.networkDomains',
    bad: 'pypi.org, https://evil/',
    sentence: ['settings.sandbox.domainError', { name: 'https://evil/' }],
    good: 'pypi.org\n*.example.com',
    patch: { sandbox: { networkDomains: ['pypi.org', '*.example.com'] } },
    multiline: true,
  },
];

describe('settings fields on the protocol schema (issue 27)', () => {
  let fake: ReturnType<typeof createFakeBridge>;
  const sets = () => fake.calls.filter((c) => c.route === 'settings.set').map((c) => c.input.patch);
  beforeEach(() => {
    let current: Settings = settings();
    fake = createFakeBridge({
      'settings.get': () => current,
      'settings.set': (i) => {
        const patch = i.patch as Record<string, unknown>;
        if ((patch.compaction as { autoThreshold?: number } | undefined)?.autoThreshold === 0.5)
          throw { code: 'invalid_input', message: 'threshold refused by server' };
        const next: Record<string, unknown> = { ...current };
        for (const [k, v] of Object.entries(patch))
          next[k] = typeof v === 'object' && v !== null ? { ...(next[k] as object), ...v } : v;
        current = next as Settings;
        return current;
      },
      'usage.daily': () => ({ rows: [] }),
      'usage.prices.list': () => [],
      'usage.prices.set': (i) => [{ model: i.model, price: i.price, source: 'profile' }],
    });
    setBridge(fake.bridge);
    useAppStore.setState({ settings: settings(), panel: 'settings', providers: [profile] });
  });
  afterEach(async () => {
    cleanup();
    await i18n.changeLanguage('en');
  });

  const open = (tab: string) => {
    cleanup();
    render(<SettingsPage />);
    fireEvent.click(screen.getByTestId(`settings-tab-${tab}`));
  };
  const type = async (testId: string, value: string, how: 'blur' | 'enter') => {
    await act(async () => {
      const input = screen.getByTestId(testId);
      fireEvent.change(input, { target: { value } });
      if (how === 'blur') fireEvent.blur(input);
      else fireEvent.keyDown(input, { key: 'Enter' });
    });
  };

  for (const lang of ['en', 'zh-CN'] as const)
    for (const c of CASES)
      it(`${c.testId} (${lang}): a bad value is refused with its sentence; a good one is applied`, async () => {
        await i18n.changeLanguage(lang);
        open(c.tab);
        const input = screen.getByTestId(c.testId);
        // Keyboard and screen readers: the label names the field.
        expect(screen.getByLabelText(i18n.t(c.label))).toBe(input);

        await type(c.testId, c.bad, 'blur');
        const error = screen.getByTestId(`${c.testId}-error`);
        const sentence = i18n.t(c.sentence[0], c.sentence[1]);
        expect(error.textContent).toBe(sentence);
        if (lang === 'zh-CN') expect(sentence).not.toBe(i18n.getFixedT('en')(c.sentence[0], c.sentence[1]));
        expect(error.getAttribute('role')).toBe('alert');
        expect(input.getAttribute('aria-invalid')).toBe('true');
        expect(input.getAttribute('aria-describedby')).toContain(error.id);
        expect(sets()).toEqual([]);

        await type(c.testId, c.good, c.multiline ? 'blur' : 'enter');
        expect(sets()).toEqual([c.patch]);
        expect(screen.queryByTestId(`${c.testId}-error`)).toBeNull();
        expect(input.getAttribute('aria-invalid')).toBeNull();
      });

  it('an unchanged value is not applied again', async () => {
    open('context');
    await type('tool-output-input', ' 5000 ', 'blur');
    await type('threshold-input', '80', 'enter');
    expect(sets()).toEqual([]);
  });

  it('custom instructions longer than the protocol takes are refused, on blur', async () => {
    open('general');
    await type('custom-instructions', 'x'.repeat(20_001), 'blur');
    expect(screen.getByTestId('custom-instructions-error').textContent).toBe('This is too long.');
    expect(sets()).toEqual([]);
    await type('custom-instructions', 'Answer briefly.', 'blur');
    expect(sets()).toEqual([{ agent: { customInstructions: 'Answer briefly.' } }]);
  });

  it('a newer error replaces an older one: the runtime’s refusal goes when a field refuses, and back', async () => {
    open('context');
    await type('threshold-input', '50', 'enter');
    expect((await screen.findByTestId('settings-error')).textContent).toBe('threshold refused by server');
    await type('tool-output-input', '0', 'blur');
    expect(screen.queryByTestId('settings-error')).toBeNull();
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual([
      'Enter a whole number from 1 to 1,000,000.',
    ]);
    // The same field refused anew: still one sentence, the newest.
    await type('tool-output-input', 'lots', 'enter');
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    await type('threshold-input', '50', 'blur');
    expect((await screen.findByTestId('settings-error')).textContent).toBe('threshold refused by server');
  });

  it('a model’s price is checked by the protocol’s price schema before it is saved', async () => {
    for (const lang of ['en', 'zh-CN'] as const) {
      await i18n.changeLanguage(lang);
      open('usage');
      const row = await screen.findByTestId('price-local-model');
      const [input, cached, output] = Array.from(row.querySelectorAll('input'));
      await act(async () => {
        fireEvent.change(input!, { target: { value: '-1' } });
        fireEvent.change(cached!, { target: { value: '' } });
        fireEvent.change(output!, { target: { value: '2' } });
        fireEvent.click(screen.getByRole('button', { name: i18n.t('cost.settings.save') }));
      });
      expect(screen.getByTestId('price-local-model-input-error').textContent).toBe(
        i18n.t('cost.settings.priceInvalid'),
      );
      expect(screen.getByTestId('price-local-model-cachedInput-error').textContent).toBe(
        i18n.t('cost.settings.priceInvalid'),
      );
      expect(screen.queryByTestId('price-local-model-output-error')).toBeNull();
      expect(fake.calls.some((c) => c.route === 'usage.prices.set')).toBe(false);
    }
    await act(async () => {
      const [input, cached] = Array.from(screen.getByTestId('price-local-model').querySelectorAll('input'));
      fireEvent.change(input!, { target: { value: '1.5' } });
      fireEvent.change(cached!, { target: { value: '0.15' } });
      fireEvent.click(screen.getByRole('button', { name: i18n.t('cost.settings.save') }));
    });
    expect(fake.calls.filter((c) => c.route === 'usage.prices.set').map((c) => c.input)).toEqual([
      { profileId: 'p1', model: 'local-model', price: { input: 1.5, cachedInput: 0.15, output: 2 } },
    ]);
    expect(screen.queryAllByRole('alert')).toEqual([]);
  });
});
