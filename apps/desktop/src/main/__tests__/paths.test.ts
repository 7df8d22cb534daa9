import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { dataFiles, resolveDataDir } from '../paths';

describe('resolveDataDir', () => {
  it('uses userData by default', () => {
    expect(resolveDataDir({}, '/home/u/.config/Threadline', '/cwd')).toEqual({
      dir: '/home/u/.config/Threadline',
      overridden: false,
    });
    expect(resolveDataDir({ THREADLINE_DATA_DIR: '  ' }, '/ud', '/cwd').overridden).toBe(false);
  });

  it('honours THREADLINE_DATA_DIR, relative to the working directory', () => {
    expect(resolveDataDir({ THREADLINE_DATA_DIR: '/tmp/tl' }, '/ud', '/cwd')).toEqual({
      dir: '/tmp/tl',
      overridden: true,
    });
    expect(resolveDataDir({ THREADLINE_DATA_DIR: 'data' }, '/ud', '/cwd')).toEqual({
      dir: '/cwd/data',
      overridden: true,
    });
  });

  it('names the database threadline.sqlite', () => {
    expect(dataFiles('/d')).toEqual({
      database: join('/d', 'threadline.sqlite'),
      windowState: join('/d', 'window-state.json'),
    });
  });
});
