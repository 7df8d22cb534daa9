import type { AppEvent } from '@threadline/protocol';
import { chatEvents } from './chatSlice';
import { checkpointEvents } from './checkpointSlice';
import { contextEvents } from './contextSlice';
import { sessionsEvents } from './sessionsSlice';
import type { AppState } from './types';
import { uiEvents } from './uiSlice';

/**
 * The runtime's events, offered to every slice in turn: each applies those that change its own
 * state (its file says which) and ignores the rest, so no slice writes another's fields.
 */
export function createEventHandler(
  get: () => AppState,
  set: (patch: Partial<AppState>) => void,
): (e: AppEvent) => void {
  const slices = [sessionsEvents, chatEvents, contextEvents, uiEvents, checkpointEvents].map((events) =>
    events(get, set),
  );
  return (e) => {
    // Anything but a delta changes the live state a chat.state answer in flight describes.
    // (memory.updated and project.updated change none of it.)
    if (
      e.type !== 'message.delta' &&
      e.type !== 'memory.updated' &&
      e.type !== 'project.updated' &&
      'sessionId' in e &&
      e.sessionId
    )
      get().bumpLiveEpoch(e.sessionId);
    for (const apply of slices) apply(e);
  };
}
