#!/usr/bin/env node
// Runs the CLI: the TypeScript sources through tsx (workspace packages ship source).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
