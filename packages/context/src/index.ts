/** @threadline/context — the context engine: pure functions, no I/O. */
export * from './tokens';
export * from './truncate';
export * from './normalize';
export * from './errors';
export * from './view';
export * from './compaction';
export * from './memory';
export * from './gate';
