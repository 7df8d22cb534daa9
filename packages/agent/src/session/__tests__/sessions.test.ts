import { describe, expect, it } from 'vitest';
import { Sessions } from '../session';

describe('Sessions.busy', () => {
  it('answers for an id never seen without keeping a Session for it (chat.send on an unknown session)', () => {
    const sessions = new Sessions();
    expect(sessions.busy('no-such-session')).toBe(false);
    expect(sessions.all()).toHaveLength(0);
  });

  it("follows the session's work once it exists", () => {
    const sessions = new Sessions();
    const session = sessions.get('s1');
    expect(sessions.busy('s1')).toBe(false);
    session.workStarted(new AbortController());
    expect(sessions.busy('s1')).toBe(true);
    session.workEnded();
    expect(sessions.busy('s1')).toBe(false);
  });
});

describe('Session', () => {
  it('answers a waiting card once, with the reason of a denial taken once', async () => {
    const session = new Sessions().get('s1');
    const abort = new AbortController();
    expect(session.answer('c1', 'approve')).toBe(false);
    const answer = session.awaitApproval('c1', abort.signal);
    expect(session.waitsForApproval('c1')).toBe(true);
    expect(session.answer('c1', 'deny', 'not that file')).toBe(true);
    expect(await answer).toBe('deny');
    expect(session.waitsForApproval('c1')).toBe(false);
    expect(session.takeDenyReason('c1')).toBe('not that file');
    expect(session.takeDenyReason('c1')).toBeUndefined();
  });

  it("a card waiting when the work stops is answered 'aborted' and waits no more", async () => {
    const session = new Sessions().get('s1');
    const abort = new AbortController();
    const answer = session.awaitApproval('c1', abort.signal);
    abort.abort();
    expect(await answer).toBe('aborted');
    expect(session.waitsForApproval('c1')).toBe(false);
  });

  it('pauses automatic compaction at the limit of failures in a row; a manual one that works resumes it', () => {
    const session = new Sessions().get('s1');
    expect(session.autoCompactionFailed(2)).toBe(1);
    expect(session.autoPaused).toBe(false);
    expect(session.autoCompactionFailed(2)).toBe(2);
    expect(session.autoPaused).toBe(true);
    session.compactionWorks();
    expect(session.autoPaused).toBe(false);
    expect(session.autoCompactionFailed(2)).toBe(1);
  });

  it('runs one background work at a time and forgets it when it ends', async () => {
    const session = new Sessions().get('s1');
    let finish = (): void => {};
    expect(session.runInBackground(() => new Promise<void>((r) => (finish = r)))).toBe(true);
    expect(session.runInBackground(async () => {})).toBe(false);
    const running = session.background!.promise;
    finish();
    await running;
    expect(session.background).toBeNull();
  });
});
