import { seed } from './fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { SandboxStatus } from '@threadline/protocol';
import i18n from '../i18n';
import { NetworkSwitch } from '../components/NetworkSwitch';
import { SandboxState } from '../components/SandboxState';
import { ToolCallCard } from '../components/ToolCallCard';
import { useAppStore } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';

afterEach(async () => {
  cleanup();
  await i18n.changeLanguage('en');
});

const status = (s: Partial<SandboxStatus>): SandboxStatus => ({
  kind: 'bwrap',
  reason: null,
  detail: null,
  network: null,
  domains: ['registry.npmjs.org', 'pypi.org'],
  ...s,
});

describe('SandboxState (Settings → Tool approval)', () => {
  it('names the sandbox in force under Sandboxed', async () => {
    setBridge(createFakeBridge({ 'sandbox.status': () => status({}) }).bridge);
    render(<SandboxState policy="sandboxed" />);
    expect((await screen.findByTestId('sandbox-state')).textContent).toMatch(
      /^In force: commands run inside bubblewrap without asking/,
    );
  });

  it('without a sandbox says the mode falls back to Ask, why and how, in both languages', async () => {
    setBridge(createFakeBridge({ 'sandbox.status': () => status({ kind: 'none', reason: 'bwrap_missing' }) }).bridge);
    const { unmount } = render(<SandboxState policy="sandboxed" />);
    const el = await screen.findByTestId('sandbox-state');
    expect(el.textContent).toMatch(/^In force: Ask\. .*bubblewrap is not installed.*sudo apt install bubblewrap/);
    unmount();
    await i18n.changeLanguage('zh-CN');
    render(<SandboxState policy="sandboxed" />);
    expect((await screen.findByTestId('sandbox-state')).textContent).toMatch(
      /^当前生效：询问。.*apt install bubblewrap/,
    );
  });
});

describe('NetworkSwitch (chat header)', () => {
  it('confirms the first time it is turned on, not again in the session; hidden without a sandbox', async () => {
    let network = false;
    const fake = createFakeBridge({
      'sandbox.status': () => status({ network }),
      'sandbox.setNetwork': (i) => {
        network = i.allowed as boolean;
        return status({ network });
      },
    });
    setBridge(fake.bridge);
    render(<NetworkSwitch sessionId="s1" />);
    const button = await screen.findByTestId('network-switch');
    expect(button.getAttribute('aria-pressed')).toBe('false');
    fireEvent.click(button);
    expect(screen.getByTestId('network-confirm').textContent).toMatch(
      /reach these domains.*registry\.npmjs\.org, pypi\.org/,
    );
    expect(fake.calls.some((c) => c.route === 'sandbox.setNetwork')).toBe(false);
    await act(async () => fireEvent.click(screen.getByTestId('network-confirm-yes')));
    expect(screen.getByTestId('network-switch').getAttribute('aria-pressed')).toBe('true');
    await act(async () => fireEvent.click(screen.getByTestId('network-switch')));
    expect(network).toBe(false);
    await act(async () => fireEvent.click(screen.getByTestId('network-switch')));
    expect(screen.queryByTestId('network-confirm')).toBeNull();
    expect(network).toBe(true);
    cleanup();
    setBridge(createFakeBridge({ 'sandbox.status': () => status({ kind: 'none', reason: 'bwrap_missing' }) }).bridge);
    render(<NetworkSwitch sessionId="s2" />);
    await act(async () => {});
    expect(screen.queryByTestId('network-switch')).toBeNull();
  });
});

describe('ToolCallCard leaving the sandbox', () => {
  it('says it runs outside the sandbox and offers no rule that allows it', async () => {
    const call = {
      id: 'c9',
      type: 'function' as const,
      function: { name: 'shell', arguments: '{"command":"touch .git/hooks/x","sandbox":false}' },
    };
    useAppStore.setState(
      seed({
        busy: { s1: true },
        tools: {
          c9: {
            sessionId: 's1',
            needsApproval: true,
            durationMs: null,
            status: 'waiting',
            call,
            messageId: 'm1',
            sandbox: { state: 'outside_requested' },
            rules: {
              parts: [
                {
                  options: [{ kind: 'command', tool: 'shell', words: ['touch'], more: true, sandbox: 'also_outside' }],
                  preferred: 0,
                },
              ],
              blocked: 'leave_sandbox',
              folder: '/home/u/Threadline',
            },
          },
        },
      }),
    );
    render(<ToolCallCard sessionId="s1" call={call} result={null} />);
    expect(screen.getByTestId('tool-sandbox').textContent).toMatch(/Runs OUTSIDE the sandbox/);
    expect(screen.queryByTestId('remember-allow')).toBeNull();
    expect(screen.getByTestId('remember-blocked').textContent).toMatch(/one command at a time/);
    expect(screen.getByRole('button', { name: 'Allow once' })).toBeTruthy();
  });
});
