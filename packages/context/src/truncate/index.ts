export * from './truncate';
