export { runOffThread, workPool, poolSize, WorkPool, type HostCalls, type RunOptions } from '../pool/pool';
export {
  compactOffThread,
  refreshMemoryOffThread,
  COMPACT_OFF_THREAD_CHARS,
  COMPACT_OFF_THREAD_MESSAGES,
  REFRESH_OFF_THREAD_CHARS,
} from './offThread';
