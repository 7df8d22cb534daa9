// Every security-relevant decision of the main process, pure and unit-tested.
// The Electron glue in ../window.ts and ../ipc.ts only wires these into Electron's hooks.
export * from './origin';
export * from './navigation';
export * from './webPreferences';
export * from './csp';
export * from './permissions';
export * from './appProtocol';
