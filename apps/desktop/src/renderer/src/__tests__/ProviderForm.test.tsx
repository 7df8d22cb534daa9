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

  it('says before saving that a stored key is dropped when the address moves to another host', async () => {
    const fake = createFakeBridge({
      'providers.upsert': (i) => ({ ...profile, baseUrl: i.baseUrl, hasKey: false }),
      'providers.setActive': (i) => ({ ...profile, id: i.id, baseUrl: 'https://evil.example/v1', hasKey: false }),
      'providers.list': () => [],
      // Saving tests the draft first; this one answers (the key question is the form's).
      'providers.test': () => ({ ok: true, message: 'ok', latencyMs: 5 }),
    });
    setBridge(fake.bridge);
    render(<ProviderForm profile={profile} submitLabel="Save" />);
    const url = screen.getByTestId('provider-url');
    expect(screen.queryByTestId('provider-key-moved')).toBeNull();
    // Same origin, another path: the key stays, nothing to say.
    fireEvent.change(url, { target: { value: 'https://api.openai.com/v2' } });
    expect(screen.queryByTestId('provider-key-moved')).toBeNull();
    fireEvent.change(url, { target: { value: 'https://evil.example/v1' } });
    expect(screen.getByTestId('provider-key-moved').textContent).toContain('https://api.openai.com');
    expect((screen.getByTestId('provider-key') as HTMLInputElement).placeholder).toBe('Paste a key for the new host');
    // A new key for the new host: nothing is lost, the warning goes.
    fireEvent.change(screen.getByTestId('provider-key'), { target: { value: 'sk-new' } });
    expect(screen.queryByTestId('provider-key-moved')).toBeNull();
    fireEvent.change(screen.getByTestId('provider-key'), { target: { value: '' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('provider-save'));
    });
    // Saved: the key is gone (the runtime dropped it), so there is nothing left to warn about.
    expect(screen.queryByTestId('key-set')).toBeNull();
    expect(screen.queryByTestId('provider-key-moved')).toBeNull();
  });

  it('saves a profile whose address, model and key are unchanged without checking it again', async () => {
    const fake = createFakeBridge({
      'providers.test': () => ({ ok: false, message: 'down', latencyMs: null, problem: 'unreachable' }),
      'providers.upsert': (i) => ({ ...profile, name: i.name }),
      'providers.setActive': () => profile,
      'providers.list': () => [],
    });
    setBridge(fake.bridge);
    render(<ProviderForm profile={profile} submitLabel="Save" />);
    fireEvent.change(screen.getByTestId('provider-name'), { target: { value: 'Work' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('provider-save'));
    });
    expect(fake.calls.map((c) => c.route)).toEqual([
      'providers.upsert',
      'providers.setActive',
      'providers.list',
      'sessions.list',
    ]);
    // Another model is a new question for the provider: it is checked (and here fails, beside the field).
    fireEvent.change(screen.getByTestId('provider-model'), { target: { value: 'gpt-5.1' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('provider-save'));
    });
    expect(fake.calls.at(-1)!.route).toBe('providers.test');
    expect(screen.getByTestId('field-error-baseUrl').textContent).toBe(
      'Nothing answers at this address; check the URL and that the server is running.',
    );
  });

  it('says in a sentence that an address is not a URL, and names the models a server offers', async () => {
    const fake = createFakeBridge({
      'providers.test': () => ({
        ok: false,
        message: 'Connected, but it does not offer model "x"',
        latencyMs: 3,
        problem: 'unknown_model',
        offered: ['llama3.1', 'qwen3'],
      }),
      'providers.list': () => [],
    });
    setBridge(fake.bridge);
    render(<ProviderForm submitLabel="Save" />);
    fireEvent.change(screen.getByTestId('provider-url'), { target: { value: 'api.example.com' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('provider-test'));
    });
    expect(fake.calls).toHaveLength(0);
    expect(screen.getByRole('alert').textContent).toBe(
      'The base URL must be a full http:// or https:// address, e.g. https://api.openai.com/v1.',
    );
    fireEvent.change(screen.getByTestId('provider-url'), { target: { value: 'http://127.0.0.1:11434/v1' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('provider-test'));
    });
    expect(screen.getByTestId('provider-test-result').textContent).toBe(
      'The provider does not offer this model. It offers: llama3.1, qwen3.',
    );
    await act(async () => {
      fireEvent.click(screen.getByTestId('provider-save'));
    });
    expect(screen.getByTestId('field-error-model').textContent).toBe(
      'The provider does not offer this model. It offers: llama3.1, qwen3.',
    );
  });
});

describe('ProviderForm: the window learned from the provider', () => {
  afterEach(cleanup);

  it('shows the learned window and forgets it on save when undone', async () => {
    const learned = { ...profile, contextWindow: 100_000, learnedContextWindow: 16_000 };
    const fake = createFakeBridge({
      'providers.upsert': (i) => ({
        ...learned,
        learnedContextWindow: i.learnedContextWindow === null ? null : 16_000,
      }),
      'providers.list': () => [],
      'providers.test': () => ({ ok: true, message: 'ok', latencyMs: 5 }),
    });
    setBridge(fake.bridge);
    render(<ProviderForm profile={learned} submitLabel="Save" />);
    expect(screen.getByTestId('provider-learned-window').textContent).toContain('16,000');
    fireEvent.click(screen.getByTestId('provider-learned-undo'));
    await act(async () => {
      fireEvent.click(screen.getByTestId('provider-save'));
    });
    expect(fake.calls.find((c) => c.route === 'providers.upsert')?.input).toMatchObject({
      id: 'p1',
      contextWindow: 100_000,
      learnedContextWindow: null,
    });
    expect(screen.queryByTestId('provider-learned-window')).toBeNull();
  });
});

describe('the window a local server runs the model with (issue 36)', () => {
  afterEach(cleanup);

  const ollama: ProviderProfile = {
    ...profile,
    preset: 'ollama',
    name: 'Ollama',
    baseUrl: 'http://127.0.0.1:11434/v1',
    model: 'qwen2.5:7b',
    contextWindow: 8_192,
    hasKey: false,
    serverWindow: {
      source: 'ollama',
      model: 'qwen2.5:7b',
      window: 4_096,
      modelMax: 32_768,
      field: 'num_ctx',
      alias: null,
      checkedAt: 0,
    },
  };

  it('says what the server runs the model with and where it came from; the user can take it or read again', async () => {
    const fake = createFakeBridge({
      'providers.readWindow': () => ({
        ...ollama,
        serverWindow: { ...ollama.serverWindow!, window: 16_384, alias: 'qwen2.5:7b-ctx16384' },
      }),
    });
    setBridge(fake.bridge);
    render(<ProviderForm profile={ollama} submitLabel="Save" />);
    const found = screen.getByTestId('provider-server-window-found');
    expect(found.textContent).toContain('Ollama runs qwen2.5:7b with 4,096 tokens (its num_ctx).');
    expect(found.textContent).toContain('The model takes up to 32,768.');
    // The form's window is larger: Ollama will be asked to run it with that one.
    expect(found.textContent).toContain('On save, Threadline has Ollama run it with 8,192.');
    fireEvent.click(screen.getByTestId('provider-server-window-use'));
    expect((screen.getByTestId('provider-window') as HTMLInputElement).value).toBe('4096');
    await act(async () => {
      fireEvent.click(screen.getByTestId('provider-server-window-read'));
    });
    expect(fake.calls.map((c) => c.route)).toEqual(['providers.readWindow']);
    expect(screen.getByTestId('provider-server-window-found').textContent).toContain(
      'Threadline had Ollama make qwen2.5:7b-ctx16384 from qwen2.5:7b with this num_ctx.',
    );
  });

  it('a hosted profile says nothing about it', () => {
    setBridge(createFakeBridge({}).bridge);
    render(<ProviderForm profile={profile} submitLabel="Save" />);
    expect(screen.queryByTestId('provider-server-window')).toBeNull();
  });
});
