// `tsx packages/store/bench/cli.ts [--quick]`: the store benchmarks on their own.
import { runStoreBench } from './index';

await runStoreBench({ quick: process.argv.includes('--quick') });
