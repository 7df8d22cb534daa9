import { describe, expect, it } from 'vitest';
import { APP_EVENT_TYPES, isAppEvent } from '../bridge';

describe('isAppEvent (both bridges accept events through it)', () => {
  it.each(APP_EVENT_TYPES)('accepts a %s event', (type) => {
    expect(isAppEvent({ type, sessionId: 's1' })).toBe(true);
  });

  it.each([
    ['an unknown type', { type: 'evil' }],
    ['a type that is not a string', { type: 3 }],
    ['no type', { sessionId: 's1' }],
    ['null', null],
    ['a string', 'usage'],
    ['an array', ['usage']],
  ])('refuses %s', (_what, value) => {
    expect(isAppEvent(value)).toBe(false);
  });
});
