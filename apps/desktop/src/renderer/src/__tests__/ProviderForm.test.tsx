import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import '../i18n';
import type { ProviderProfile } from '@threadline/protocol';
import { ProviderForm } from '../components/ProviderForm';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';

const profile: ProviderProfile = {
  id: 'p1',
  preset: 'openai',
  name: 'OpenAI',
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4.1',
  contextWindow: 1_047_576,
  compactionModel: null,
  hasKey: true,
  active: true,
};

describe('ProviderForm', () => {
  afterEach(cleanup);

  it('tests the draft without saving, and removes the stored key only when asked', async () => {
    const fake = createFakeBridge({
      'providers.test': () => ({ ok: true, message: 'Connected', latencyMs: 12 }),
      'providers.upsert': (i) => ({ ...profile, hasKey: i.apiKey !== null }),
      'providers.setActive': () => ({ ...profile, hasKey: false }),
      'providers.list': () => [],
    });
    setBridge(fake.bridge);
    render(<ProviderForm profile={profile} submitLabel="Save" />);
    await act(async () => {
      fireEvent.click(screen.getByTestId('provider-test'));
    });
    expect(fake.calls.map((c) => c.route)).toEqual(['providers.test']);
    expect(fake.calls[0]!.input).toMatchObject({ draft: { id: 'p1', model: 'gpt-4.1' } });
    expect(fake.calls[0]!.input.draft).not.toHaveProperty('apiKey');
    fireEvent.click(screen.getByTestId('provider-remove-key'));
    expect((screen.getByTestId('provider-key') as HTMLInputElement).disabled).toBe(true);
    await act(async () => {
      fireEvent.click(screen.getByTestId('provider-save'));
    });
    expect(fake.calls.find((c) => c.route === 'providers.upsert')?.input).toMatchObject({ id: 'p1', apiKey: null });
    expect(screen.queryByTestId('key-set')).toBeNull();
  });
});
