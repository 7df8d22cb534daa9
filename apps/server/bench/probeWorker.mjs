// hostile.ts's probe, in a thread of its own: chat.state of one session, one round trip after the
// other, until told to stop; then the longest and the count (it says `ready` after a first,
// uncounted one). The bench's own work meanwhile (an
// input of 24 MB built, sent and collected by its garbage collector) delays no probe: a thread
// has its own event loop and heap. Plain JS: a worker does not get tsx's loader.
import { parentPort, workerData } from 'node:worker_threads';

const { url, token, sessionId } = workerData;
let stop = false;
parentPort.once('message', () => (stop = true));
const ask = () =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sessionId }),
  });
// The first round trip loads fetch in this thread: not counted; the input starts after it.
await (await ask()).json();
parentPort.postMessage('ready');
let longestMs = 0;
let probes = 0;
while (!stop) {
  const s = performance.now();
  const res = await ask();
  if (!(await res.json()).ok) throw new Error('chat.state failed');
  longestMs = Math.max(longestMs, performance.now() - s);
  probes++;
}
parentPort.postMessage({ longestMs, probes });
