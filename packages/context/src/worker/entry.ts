/**
 * The work-pool worker (pool/pool.ts starts it): runs the task table (worker/tasks.ts) one task
 * at a time and relays the task's callbacks to the main thread. The synchronous ones wait on the
 * shared buffer the pool answers in.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fromPlainError, toPlainError, type FromWorker, type ToWorker, type WorkerInit } from '../pool/pool';
import type { TaskHost } from '../pool/host';
import { tasks, type TaskName } from './tasks';

const port = parentPort;
if (!port) throw new Error('worker/entry.ts runs in a worker thread');
const { sync } = workerData as WorkerInit;
const head = new Int32Array(sync, 0, 2);
const send = (m: FromWorker): void => port.postMessage(m);

let nextCall = 1;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();

function hostFor(id: number): TaskHost {
  return {
    call: (name, arg) =>
      new Promise((resolve, reject) => {
        const callId = nextCall++;
        pending.set(callId, { resolve, reject });
        send({ type: 'call', id, callId, name, arg });
      }),
    notify: (name, arg) => send({ type: 'notify', id, name, arg }),
    callSync: (name, arg) => {
      Atomics.store(head, 0, 0);
      send({ type: 'callSync', id, name, arg });
      Atomics.wait(head, 0, 0);
      const state = Atomics.load(head, 0);
      const len = Atomics.load(head, 1);
      const value = JSON.parse(new TextDecoder().decode(new Uint8Array(sync, 8, len).slice())) as unknown;
      if (state === 2) throw new Error(String(value));
      return value;
    },
  };
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'reply') {
    const p = pending.get(m.callId);
    if (!p) return;
    pending.delete(m.callId);
    if (m.ok) p.resolve(m.value);
    else p.reject(fromPlainError(m.error));
    return;
  }
  const { id } = m;
  const fn = tasks[m.task as TaskName] as ((payload: unknown, host: TaskHost) => unknown) | undefined;
  Promise.resolve()
    .then(() => {
      if (!fn) throw new Error(`no task ${m.task}`);
      return fn(m.payload, hostFor(id));
    })
    .then(
      (result) => send({ type: 'done', id, result }),
      (err: unknown) => send({ type: 'fail', id, error: toPlainError(err) }),
    );
});

send({ type: 'ready' });
