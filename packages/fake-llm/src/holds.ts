import type { ChatRequestView } from './types';

/** Requests a test keeps from being answered until it says so (FakeLlm.hold). */
export interface FakeHold {
  /** How many matching requests wait now (received, not answered, client still there). */
  held(): number;
  /** Answers those that wait and lets every later matching request through. */
  release(): void;
}

interface Hold {
  match: (req: ChatRequestView) => boolean;
  waiting: Set<() => void>;
  released: boolean;
}

/**
 * Holds on chat requests: a test proves that requests overlap (three held at once means three in
 * flight at once) or stops a run while its requests wait, with no timing involved.
 */
export class Holds {
  private readonly list: Hold[] = [];

  add(match: (req: ChatRequestView) => boolean): FakeHold {
    const h: Hold = { match, waiting: new Set(), released: false };
    this.list.push(h);
    return {
      held: () => h.waiting.size,
      release: () => {
        h.released = true;
        for (const go of [...h.waiting]) go();
      },
    };
  }

  /** Resolves when the request may be answered: at once unless a live hold matches it; also when its client leaves. */
  wait(req: ChatRequestView, gone: (onGone: () => void) => void): Promise<void> {
    const h = this.list.find((x) => !x.released && x.match(req));
    if (!h) return Promise.resolve();
    return new Promise((resolve) => {
      const go = (): void => {
        h.waiting.delete(go);
        resolve();
      };
      h.waiting.add(go);
      gone(go);
    });
  }

  releaseAll(): void {
    for (const h of this.list) {
      h.released = true;
      for (const go of [...h.waiting]) go();
    }
    this.list.length = 0;
  }
}
