import { parseNotice } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { formatGateNotice, MAX_NOTICE_COMMAND_CHARS } from '../notice';

const input = (cmd: string) => ({
  tool: 'shell',
  target: 'Desktop' as const,
  path: '/home/a/Desktop',
  originalCommand: cmd,
  rewrittenCommand: cmd.replace('~/Desktop', '/home/a/Desktop'),
});

describe('formatGateNotice', () => {
  it('cuts commands at 320 chars without splitting a surrogate pair, and still parses', () => {
    const long = `ls ~/Desktop && echo ${'😀'.repeat(400)}`;
    const parsed = parseNotice(formatGateNotice(input(long), 'debug'));
    if (parsed?.type !== 'gate') throw new Error('expected a gate notice');
    expect(parsed.payload.originalCommand.length).toBeLessThanOrEqual(MAX_NOTICE_COMMAND_CHARS);
    expect(parsed.payload.rewrittenCommand.length).toBeLessThanOrEqual(MAX_NOTICE_COMMAND_CHARS);
    expect(parsed.payload.originalCommand.endsWith('…')).toBe(true);
    expect(parsed.payload.originalCommand).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(parsed.payload.verbosity).toBe('debug');
  });

  it('short commands are kept whole', () => {
    const parsed = parseNotice(formatGateNotice(input('ls ~/Desktop'), 'brief'));
    expect(parsed?.type === 'gate' ? parsed.payload.originalCommand : null).toBe('ls ~/Desktop');
  });

  it('falls back to the runtime visibility when the gate has none; aliases accepted', () => {
    expect(formatGateNotice(input('ls ~/Desktop'), null, 'off')).toBeNull();
    expect(formatGateNotice(input('ls ~/Desktop'), undefined, 'full')).toContain('"verbosity":"debug"');
    expect(formatGateNotice(input('ls ~/Desktop'), 'disabled', 'debug')).toBeNull();
    expect(formatGateNotice(input('ls ~/Desktop'), 'brief', 'off')).toContain('"verbosity":"brief"');
  });
});
