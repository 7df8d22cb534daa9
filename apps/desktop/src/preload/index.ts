// The preload runs sandboxed with context isolation: it exposes the typed bridge as
// `window.threadline` and nothing else (no ipcRenderer, no Node).
import { contextBridge, ipcRenderer } from 'electron';
import { createBridge } from './bridge';

contextBridge.exposeInMainWorld('threadline', createBridge(ipcRenderer));
