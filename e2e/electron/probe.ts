// `tsx e2e/electron/probe.ts`: says whether the electron e2e project can run here, and why not.
import { findBuiltApp, findElectronBinary } from './launch';

const binary = findElectronBinary();
const built = findBuiltApp();
console.log(binary.ok ? `electron binary: ${binary.value}` : `electron binary: none (${binary.reason})`);
console.log(built.ok ? `built app: ${built.value}` : `built app: none (${built.reason})`);
process.exitCode = binary.ok && built.ok ? 0 : 1;
