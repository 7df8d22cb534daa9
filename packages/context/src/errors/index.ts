export * from './contextLimit';
