/** @threadline/context — the context engine: pure functions, no I/O (SPEC §3); worker/ runs the heavy ones on a thread pool. */
export * from './tokens';
export * from './truncate';
export * from './normalize';
export * from './errors';
export * from './view';
export * from './compaction';
export * from './memory';
export * from './gate';
export * from './worker';
