import { describe, expect, it, vi } from 'vitest';
import { IPC_CHANNELS, type AppApi, type AppEvent, type SessionSummary } from '@threadline/protocol';
import {
  createEventForwarder,
  handleInvoke,
  registerIpc,
  sendCommand,
  UNTRUSTED_SENDER,
  type InvokeEventLike,
  type WebContentsLike,
} from '../ipc';
import { resolveRendererLocation } from '../security';

// ipc.ts is the one module that imports ipcMain: Electron's module is this test's fake.
const ipc = vi.hoisted(() => {
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>();
  return {
    handlers,
    ipcMain: {
      handle: (c: string, l: (event: unknown, ...args: unknown[]) => Promise<unknown>) => void handlers.set(c, l),
      removeHandler: (c: string) => void handlers.delete(c),
    },
  };
});
vi.mock('electron', () => ({ ipcMain: ipc.ipcMain }));

const location = resolveRendererLocation({}, true);
const session: SessionSummary = {
  id: 's1',
  title: 'Hello',
  createdAt: 1,
  updatedAt: 2,
  messageCount: 0,
  workingFolder: '/home/u/Threadline',
};

/** Only the routes these tests call; the router is the real one from protocol. */
function fakeApi(calls: unknown[]): AppApi {
  const api: Partial<AppApi> = {
    'sessions.list': async () => [session],
    'sessions.rename': async (input) => {
      calls.push(input);
      return { ...session, title: input.title };
    },
    'attachments.add': async (input) => {
      calls.push(input);
      return { id: 'a1', kind: 'text', name: input.name, mime: input.mime, size: input.data.byteLength };
    },
  };
  return api as AppApi;
}

const appFrame = (over: Partial<InvokeEventLike> = {}): InvokeEventLike => ({
  sender: { id: 1 },
  senderFrame: { url: 'app://threadline/index.html', parent: null },
  ...over,
});

function options(calls: unknown[] = [], refused: string[] = []) {
  return {
    api: fakeApi(calls),
    location,
    isAppWebContents: (id: number) => id === 1,
    onRefused: (r: string) => refused.push(r),
  };
}

describe('handleInvoke', () => {
  it('dispatches a trusted call through the zod-validated router', async () => {
    const calls: unknown[] = [];
    expect(await handleInvoke(options(calls), appFrame(), 'sessions.list', undefined)).toEqual({
      ok: true,
      data: [session],
    });
    expect(await handleInvoke(options(calls), appFrame(), 'sessions.rename', { id: 's1', title: '  New  ' })).toEqual({
      ok: true,
      data: { ...session, title: 'New' },
    });
    expect(calls).toEqual([{ id: 's1', title: 'New' }]);
  });

  it('rejects invalid input and unknown routes without calling the API', async () => {
    const calls: unknown[] = [];
    const bad = await handleInvoke(options(calls), appFrame(), 'sessions.rename', { id: 's1', title: '' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error.code).toBe('invalid_input');
    expect(!bad.ok && bad.error.details?.issues.map((i) => i.path)).toEqual([['title']]);
    const unknown = await handleInvoke(options(calls), appFrame(), 'shell.exec', { cmd: 'rm -rf /' });
    expect(!unknown.ok && unknown.error.code).toBe('not_found');
    expect(calls).toEqual([]);
  });

  it("takes an attachment's bytes as bytes, as IPC delivers them (a structured clone), and refuses base64", async () => {
    const calls: unknown[] = [];
    const data = new Uint8Array(300_000).map((_, i) => i % 256);
    // What ipcRenderer.invoke hands the main process: a structured clone of the renderer's input.
    const sent = structuredClone({ name: 'notes.txt', mime: 'text/plain', data, thumb: undefined });
    const added = await handleInvoke(options(calls), appFrame(), 'attachments.add', sent);
    expect(added).toMatchObject({ ok: true, data: { id: 'a1', size: 300_000 } });
    const got = (calls[0] as { data: Uint8Array }).data;
    expect(got).toBeInstanceOf(Uint8Array);
    expect(Buffer.compare(Buffer.from(got), Buffer.from(data))).toBe(0);
    const base64 = await handleInvoke(options(calls), appFrame(), 'attachments.add', {
      name: 'notes.txt',
      mime: 'text/plain',
      data: Buffer.from(data).toString('base64'),
    });
    expect(!base64.ok && base64.error.code).toBe('invalid_input');
    expect(calls).toHaveLength(1);
  });

  it('refuses foreign pages, iframes, destroyed frames and windows that are not ours', async () => {
    const calls: unknown[] = [];
    const refused: string[] = [];
    const opts = options(calls, refused);
    const cases: InvokeEventLike[] = [
      appFrame({ senderFrame: { url: 'https://evil.example/', parent: null } }),
      appFrame({ senderFrame: { url: 'app://threadline/index.html', parent: {} } }),
      appFrame({ senderFrame: null }),
      appFrame({ sender: { id: 2 } }),
      appFrame({ senderFrame: { url: 'file:///tmp/index.html', parent: null } }),
    ];
    for (const event of cases) {
      expect(await handleInvoke(opts, event, 'sessions.rename', { id: 's1', title: 'x' })).toEqual(UNTRUSTED_SENDER);
    }
    expect(calls).toEqual([]);
    expect(refused).toHaveLength(cases.length);
  });
});

describe('registerIpc', () => {
  it('registers exactly one handler on the invoke channel and can remove it', async () => {
    const { handlers } = ipc;
    const dispose = registerIpc(options());
    expect([...handlers.keys()]).toEqual([IPC_CHANNELS.invoke]);
    expect(await handlers.get(IPC_CHANNELS.invoke)!(appFrame(), 'sessions.list')).toEqual({
      ok: true,
      data: [session],
    });
    dispose();
    expect(handlers.size).toBe(0);
  });
});

function fakeContents(url: string, destroyed = false) {
  const sent: [string, unknown][] = [];
  const wc: WebContentsLike = {
    isDestroyed: () => destroyed,
    getURL: () => url,
    send: (c, p) => void sent.push([c, p]),
  };
  return { wc, sent };
}

describe('createEventForwarder', () => {
  it('sends runtime events only to live windows showing the app', () => {
    const app = fakeContents('app://threadline/index.html#/s/1');
    const foreign = fakeContents('https://evil.example/');
    const dead = fakeContents('app://threadline/index.html', true);
    const forward = createEventForwarder(() => [app.wc, foreign.wc, dead.wc], location);
    const event: AppEvent = { type: 'message.delta', sessionId: 's1', messageId: 'm1', delta: 'Hi' };
    forward(event);
    expect(app.sent).toEqual([[IPC_CHANNELS.event, event]]);
    expect(foreign.sent).toEqual([]);
    expect(dead.sent).toEqual([]);
  });
});

describe('sendCommand', () => {
  it('sends menu commands on their own channel to an app window', () => {
    const app = fakeContents('app://threadline/index.html');
    expect(sendCommand(app.wc, 'new-session', location)).toBe(true);
    expect(app.sent).toEqual([[IPC_CHANNELS.command, 'new-session']]);
    expect(sendCommand(fakeContents('https://evil.example/').wc, 'open-settings', location)).toBe(false);
    expect(sendCommand(null, 'focus-input', location)).toBe(false);
  });
});
