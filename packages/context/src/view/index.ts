export * from './order';
export * from './buildView';
export * from './ingest';
export * from './images';
