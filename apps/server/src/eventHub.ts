import type { AppEvent } from '@threadline/protocol';

/** Fan-out of runtime events to every open event stream. */
export class EventHub {
  private readonly listeners = new Set<(e: AppEvent) => void>();

  publish = (event: AppEvent): void => {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // one broken stream must not stop the others
      }
    }
  };

  subscribe(listener: (e: AppEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}
