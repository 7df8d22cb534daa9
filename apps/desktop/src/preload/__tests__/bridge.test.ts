import { describe, expect, it } from 'vitest';
import { IPC_CHANNELS, type AppCommand, type AppEvent, type RouteName } from '@threadline/protocol';
import { createBridge, type IpcRendererLike } from '../bridge';

type Listener = (event: unknown, payload: unknown) => void;

function fakeIpc() {
  const invoked: unknown[][] = [];
  const listeners = new Map<string, Set<Listener>>();
  const ipc: IpcRendererLike = {
    invoke: async (channel, ...args) => {
      invoked.push([channel, ...args]);
      return { ok: true, data: 'pong' };
    },
    on: (channel, l) => listeners.set(channel, (listeners.get(channel) ?? new Set()).add(l)),
    removeListener: (channel, l) => listeners.get(channel)?.delete(l),
  };
  // What main's webContents.send looks like from the renderer side: Electron passes its event object first.
  const emit = (channel: string, payload: unknown) =>
    listeners.get(channel)?.forEach((l) => l({ sender: 'ipcRenderer!' }, payload));
  return { ipc, invoked, listeners, emit };
}

describe('preload bridge', () => {
  it('invokes known routes on the one invoke channel', async () => {
    const f = fakeIpc();
    const bridge = createBridge(f.ipc);
    expect(await bridge.invoke('sessions.rename', { id: 'a', title: 'b' })).toEqual({ ok: true, data: 'pong' });
    expect(f.invoked).toEqual([[IPC_CHANNELS.invoke, 'sessions.rename', { id: 'a', title: 'b' }]]);
  });

  it('refuses unknown route names before they reach main', async () => {
    const f = fakeIpc();
    const result = await createBridge(f.ipc).invoke('fs.readFile' as RouteName, { path: '/etc/passwd' });
    expect(result).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(f.invoked).toEqual([]);
  });

  it('delivers events as payloads only, drops malformed ones, and unsubscribes', () => {
    const f = fakeIpc();
    const got: unknown[] = [];
    const off = createBridge(f.ipc).onEvent((e) => got.push(e));
    const event: AppEvent = { type: 'error', sessionId: null, code: 'x', message: 'y' };
    f.emit(IPC_CHANNELS.event, event);
    f.emit(IPC_CHANNELS.event, { type: 'nope' });
    f.emit(IPC_CHANNELS.event, null);
    expect(got).toEqual([event]);
    off();
    expect(f.listeners.get(IPC_CHANNELS.event)?.size).toBe(0);
    f.emit(IPC_CHANNELS.event, event);
    expect(got).toHaveLength(1);
  });

  it('delivers menu commands on their own channel', () => {
    const f = fakeIpc();
    const got: AppCommand[] = [];
    const off = createBridge(f.ipc).onCommand!((c) => got.push(c));
    f.emit(IPC_CHANNELS.command, 'focus-input');
    f.emit(IPC_CHANNELS.command, 'format-disk');
    expect(got).toEqual(['focus-input']);
    off();
    expect(f.listeners.get(IPC_CHANNELS.command)?.size).toBe(0);
  });

  it('exposes exactly the bridge: no ipcRenderer, frozen', () => {
    const f = fakeIpc();
    const bridge = createBridge(f.ipc);
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'onCommand', 'onEvent', 'shell']);
    expect(bridge.shell).toBe('electron');
    expect(Object.isFrozen(bridge)).toBe(true);
    expect(Object.values(bridge)).not.toContain(f.ipc);
  });
});
