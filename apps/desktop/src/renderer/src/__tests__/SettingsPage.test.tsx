import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import i18n from '../i18n';
import { SettingsPage } from '../components/SettingsPage';
import { useAppStore } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { settings } from './fixtures';

describe('SettingsPage', () => {
  let fake: ReturnType<typeof createFakeBridge>;
  beforeEach(() => {
    let current = settings();
    fake = createFakeBridge({
      'settings.get': () => current,
      'settings.set': (i) => {
        const patch = i.patch as { compaction?: { autoThreshold?: number }; cfpm?: object; language?: 'en' | 'zh-CN' };
        if (patch.compaction?.autoThreshold === 0.5)
          throw { code: 'invalid_input', message: 'threshold refused by server' };
        current = {
          ...current,
          ...patch,
          cfpm: { ...current.cfpm, ...(patch.cfpm ?? {}) },
          compaction: { ...current.compaction, ...(patch.compaction ?? {}) },
        };
        return current;
      },
    });
    setBridge(fake.bridge);
    useAppStore.setState({ settings: settings(), panel: 'settings' });
  });
  afterEach(async () => {
    cleanup();
    await i18n.changeLanguage('en');
  });

  it('switches language at once and saves it', async () => {
    render(<SettingsPage />);
    await act(async () => {
      fireEvent.change(screen.getByTestId('language-select'), { target: { value: 'zh-CN' } });
    });
    expect(screen.getByText('设置')).toBeTruthy();
    expect(fake.calls.find((c) => c.route === 'settings.set')?.input).toEqual({ patch: { language: 'zh-CN' } });
  });

  it('validates the threshold locally (0 allowed, 150 not) and shows the server refusal', async () => {
    render(<SettingsPage />);
    fireEvent.click(screen.getByTestId('settings-tab-context'));
    const input = screen.getByTestId('threshold-input');
    await act(async () => {
      fireEvent.change(input, { target: { value: '150' } });
      fireEvent.blur(input);
    });
    expect(screen.getByText('Enter a whole number from 0 to 99.')).toBeTruthy();
    expect(fake.calls.some((c) => c.route === 'settings.set')).toBe(false);

    await act(async () => {
      fireEvent.change(input, { target: { value: '0' } });
      fireEvent.blur(input);
    });
    expect(fake.calls.filter((c) => c.route === 'settings.set').at(-1)?.input).toEqual({
      patch: { compaction: { autoThreshold: 0 } },
    });

    await act(async () => {
      fireEvent.change(input, { target: { value: '50' } });
      fireEvent.blur(input);
    });
    expect((await screen.findByTestId('settings-error')).textContent).toBe('threshold refused by server');
  });

  it('runtime visibility and strategy go through settings.set', async () => {
    render(<SettingsPage />);
    fireEvent.click(screen.getByTestId('settings-tab-context'));
    await act(async () => {
      fireEvent.click(within(screen.getByTestId('runtime-visibility')).getByRole('radio', { name: 'Debug' }));
    });
    expect(useAppStore.getState().settings?.cfpm.runtimeVisibility).toBe('debug');
    await act(async () => {
      fireEvent.click(screen.getByRole('radio', { name: /Memory snapshot/ }));
    });
    expect(useAppStore.getState().settings?.compaction.strategy).toBe('cfpm_memory_v1');
  });
});
