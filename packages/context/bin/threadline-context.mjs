#!/usr/bin/env node
// Runs the TypeScript CLI directly (workspace packages ship source): register tsx, then load it.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
