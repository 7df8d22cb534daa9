// The CLI's options through node:util parseArgs: the same forms and the same messages as before.
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../args';
import { InputError } from '../transcripts';

describe('parseArgs (count / compact options)', () => {
  it('reads --name value, --name=value, flags and positionals', () => {
    const a = parseArgs(['s.json', '--window', '1000', '--strategy=progressive', '--json', '--target=', 'x']);
    expect(a.positional).toEqual(['s.json', 'x']);
    expect(a.values).toEqual({ window: '1000', strategy: 'progressive', target: '' });
    expect([...a.flags]).toEqual(['json']);
  });

  it('takes the next word as a value even when it starts with a dash; a one-dash word is positional', () => {
    const a = parseArgs(['--window', '-5', '-', '-x', '-abc', '--threshold', '--json']);
    expect(a.values).toEqual({ window: '-5', threshold: '--json' });
    expect(a.positional).toEqual(['-', '-x', '-abc']);
    expect(a.flags.size).toBe(0);
  });

  it('the last of a repeated option wins', () => {
    expect(parseArgs(['--model', 'a', '--model', 'b']).values.model).toBe('b');
  });

  it.each([
    [['--frobnicate'], 'unknown option --frobnicate'],
    [['--frobnicate=3'], 'unknown option --frobnicate'],
    [['--json=yes'], '--json takes no value'],
    [['--window'], '--window needs a value'],
    [['a', '--', 'b'], 'unknown option --'],
  ])('%j is an InputError: %s', (argv, message) => {
    let err: unknown = null;
    try {
      parseArgs(argv);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(message);
  });
});
