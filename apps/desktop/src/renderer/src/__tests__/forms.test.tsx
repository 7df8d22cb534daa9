import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import i18n from '../i18n';
import { McpServerForm } from '../components/McpServerForm';
import { ProviderForm } from '../components/ProviderForm';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { profile } from './fixtures';

const click = async (testId: string) => {
  await act(async () => {
    fireEvent.click(screen.getByTestId(testId));
  });
};
const alerts = () => screen.queryAllByRole('alert').map((a) => a.textContent);

describe('forms on the protocol schemas (issue 27)', () => {
  afterEach(async () => {
    cleanup();
    await i18n.changeLanguage('en');
  });

  it('each refused field says why beside it, in English and in Chinese, never in zod’s words', async () => {
    const fake = createFakeBridge({});
    setBridge(fake.bridge);
    for (const [lang, url, window, name] of [
      [
        'en',
        'The base URL must be a full http:// or https:// address',
        'The context window must be a whole number',
        'This field is required.',
      ],
      ['zh-CN', 'http://', '上下文窗口', '此字段为必填项。'],
    ] as const) {
      await i18n.changeLanguage(lang);
      render(<ProviderForm submitLabel="Save" />);
      fireEvent.change(screen.getByTestId('provider-url'), { target: { value: 'api.example.com' } });
      fireEvent.change(screen.getByTestId('provider-window'), { target: { value: '' } });
      fireEvent.change(screen.getByTestId('provider-name'), { target: { value: '  ' } });
      await click('provider-save');
      await vi.waitFor(() => expect(screen.getByTestId('field-error-baseUrl').textContent).toContain(url));
      expect(fake.calls).toEqual([]);
      expect(screen.getByTestId('field-error-contextWindow').textContent).toContain(window);
      expect(screen.getByTestId('field-error-name').textContent).toBe(name);
      // Wired: the control says it is invalid and is described by its error.
      const input = screen.getByTestId('provider-url');
      expect(input.getAttribute('aria-invalid')).toBe('true');
      expect(input.getAttribute('aria-describedby')).toContain(screen.getByTestId('field-error-baseUrl').id);
      expect(screen.getByLabelText(i18n.t('provider.baseUrl'))).toBe(input);
      for (const text of alerts()) expect(text).not.toMatch(/Invalid|draft\.|expected/);
      cleanup();
    }
  });

  it('a refusal of the runtime’s input check goes beside the field it names, in a sentence', async () => {
    const fake = createFakeBridge({
      'providers.test': () => ({ ok: true, message: 'Connected', latencyMs: 3 }),
      'providers.upsert': () => {
        throw Object.assign(new Error('baseUrl: Invalid URL'), { code: 'invalid_input' });
      },
    });
    // The fake bridge passes no details: the refusal is a banner, still not zod's text.
    setBridge(fake.bridge);
    render(<ProviderForm profile={profile} submitLabel="Save" />);
    fireEvent.change(screen.getByTestId('provider-model'), { target: { value: 'other-model' } });
    await click('provider-save');
    expect(alerts()).toEqual(['This value is not accepted. Check the fields and try again.']);
  });

  it('one banner per form: a newer error replaces the older one', async () => {
    let setActive = 0;
    const fake = createFakeBridge({
      'providers.test': () => ({ ok: false, message: 'Service Unavailable', latencyMs: 3, problem: 'other' }),
      'providers.upsert': (i) => ({ ...profile, ...i, id: 'p1', hasKey: false }),
      'providers.setActive': () => {
        setActive += 1;
        throw Object.assign(new Error('The profile is busy.'), { code: 'busy' });
      },
      'providers.list': () => [],
    });
    setBridge(fake.bridge);
    render(<ProviderForm profile={profile} submitLabel="Save" />);
    fireEvent.change(screen.getByTestId('provider-model'), { target: { value: 'other-model' } });
    await click('provider-save');
    // The failed check: one warning, with "Save anyway".
    expect(screen.getByTestId('save-check-failed').textContent).toContain('Service Unavailable');
    await click('provider-save-anyway');
    expect(setActive).toBe(1);
    // The newer error stands alone: the check's warning is gone.
    expect(screen.queryByTestId('save-check-failed')).toBeNull();
    expect(document.querySelectorAll('.form-error, .form-warning')).toHaveLength(1);
    expect(alerts()).toEqual(['The profile is busy.']);
    // Saving again: the check fails again and its warning replaces the error.
    await click('provider-save');
    expect(document.querySelectorAll('.form-error, .form-warning')).toHaveLength(1);
    expect(screen.getByTestId('save-check-failed')).toBeTruthy();
    expect(alerts()).toEqual([]);
  });

  it('the MCP form checks with the protocol’s schema and says each refusal in the user’s language', async () => {
    const fake = createFakeBridge({ 'mcp.servers.upsert': () => ({}) });
    setBridge(fake.bridge);
    let done = 0;
    render(<McpServerForm onDone={() => (done += 1)} />);
    fireEvent.change(screen.getByTestId('mcp-name'), { target: { value: 'files!' } });
    fireEvent.change(screen.getByTestId('mcp-secrets'), { target: { value: 'TOKEN=1\nbroken' } });
    fireEvent.change(screen.getByTestId('mcp-env-allow'), { target: { value: 'GOPATH\nnot a-name' } });
    await click('mcp-save');
    // The resolver checks asynchronously: wait for its answer.
    await vi.waitFor(() =>
      expect(screen.getByTestId('mcp-form-error-command').textContent).toContain('a command is required'),
    );
    expect(fake.calls).toEqual([]);
    expect(screen.getByTestId('mcp-form-error-name').textContent).toBe(i18n.t('mcp.form.errors.nameChars'));
    expect(screen.getByTestId('mcp-form-error-secrets').textContent).toBe(i18n.t('mcp.form.badEnv', { line: 2 }));
    expect(screen.getByTestId('mcp-form-error-envAllow').textContent).toBe(i18n.t('mcp.form.errors.envAllow'));
    await act(async () => {
      await i18n.changeLanguage('zh-CN');
    });
    expect(screen.getByTestId('mcp-form-error-command').textContent).toBe('请填写启动服务器的命令：命令为必填项。');
    fireEvent.change(screen.getByTestId('mcp-name'), { target: { value: 'files' } });
    fireEvent.change(screen.getByTestId('mcp-command'), { target: { value: 'npx' } });
    fireEvent.change(screen.getByTestId('mcp-secrets'), { target: { value: 'TOKEN=1' } });
    fireEvent.change(screen.getByTestId('mcp-env-allow'), { target: { value: 'GOPATH\nJAVA_HOME' } });
    await click('mcp-save');
    await vi.waitFor(() => expect(fake.calls.map((c) => c.route)).toEqual(['mcp.servers.upsert']));
    expect(fake.calls[0]!.input).toMatchObject({
      name: 'files',
      transport: 'stdio',
      command: 'npx',
      env: { TOKEN: '1' },
      envAllow: ['GOPATH', 'JAVA_HOME'],
    });
    await vi.waitFor(() => expect(done).toBe(1));
  });
});
