/**
 * A counter per session of the events that change its live state (a step committed, a tool
 * requested or finished, busy on or off). An RPC answer about that state (chat.state) taken while
 * the counter moved is older than what the events already said, and must not overwrite it: a
 * late "busy: true" after the turn's end would leave the session stuck.
 */
const epochs = new Map<string, number>();

export function bumpEpoch(sessionId: string): void {
  epochs.set(sessionId, (epochs.get(sessionId) ?? 0) + 1);
}

export function epochOf(sessionId: string): number {
  return epochs.get(sessionId) ?? 0;
}

/**
 * The streamed text of a step from a snapshot (`snapshot`, everything up to some moment) and the
 * deltas the page received meanwhile (`live`, which may overlap the snapshot's end): the longest
 * end of the snapshot that starts `live` is counted once.
 */
export function joinStream(snapshot: string, live: string): string {
  if (live === '' || snapshot.endsWith(live)) return snapshot;
  if (live.startsWith(snapshot)) return live;
  for (let k = Math.min(snapshot.length, live.length); k > 0; k--) {
    if (snapshot.endsWith(live.slice(0, k))) return snapshot + live.slice(k);
  }
  return snapshot + live;
}
