export * from './messages';
export * from './settings';
export * from './memory';
export * from './compaction';
export * from './notices';
export * from './providers';
export * from './routes';
export * from './events';
