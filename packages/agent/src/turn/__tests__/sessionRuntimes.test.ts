import { describe, expect, it } from 'vitest';
import { SessionRuntimes } from '../sessionRuntime';

describe('SessionRuntimes.busy', () => {
  it('answers for an id never seen without keeping a runtime for it (chat.send on an unknown session)', () => {
    const runtimes = new SessionRuntimes();
    expect(runtimes.busy('no-such-session')).toBe(false);
    expect(runtimes.all()).toHaveLength(0);
  });

  it("follows the session's runtime once it exists", () => {
    const runtimes = new SessionRuntimes();
    const rt = runtimes.get('s1');
    expect(runtimes.busy('s1')).toBe(false);
    rt.busy = true;
    expect(runtimes.busy('s1')).toBe(true);
  });
});
