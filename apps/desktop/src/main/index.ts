// Entry of the Electron main process (electron-vite builds it to out/main/index.js).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runApp } from './app';
import { openDesktopRuntime } from './runtime';

runApp({ openRuntime: openDesktopRuntime, env: process.env, mainDir: dirname(fileURLToPath(import.meta.url)) });
