export * from './tools';
export { childEnv, isSecretName, isSecretValue, mcpEnv, MCP_CORE_ENV } from './process/childEnv';
export { acquireDataLock, DataFolderLockedError, isZombie, LOCK_FILE, type DataLock } from './process/dataLock';
export { dataFolderFailure, ensureDataFolder, onDataFolder } from './process/dataFolderErrors';
export { createAppApi, type AppRuntime, type CreateAppApiOptions } from './api/createAppApi';
export { ensureEnvProvider, type Env } from './api/envProvider';
export { openRuntime, DATABASE_FILE, type OpenRuntimeOptions, type OpenedRuntime } from './api/openRuntime';
export { exportSession } from './api/exportSession';
export type { ProviderClient } from './provider/client';
export type { StreamChatRequest, StreamChatResult } from './provider/types';
export { defaultProviderFactory, type ProviderFactory } from './api/apiContext';
export type { CompactionPlan } from './turn/compaction';
export { TURN_ABORTED_TEXT, MAX_ATTEMPTS_MESSAGE } from './noticeTexts';
export { maxRecoveryAttempts } from './turn/recovery';
export { detectSandbox, type SandboxInfo } from './sandbox/detect';
// The shells (apps/*) may depend on agent and protocol only; they open the store through here.
export {
  isDamagedDatabase,
  openStore,
  createFileEncryptor,
  StoreError,
  type Store,
  type Encryptor,
  type OpenStoreOptions,
  type StoreErrorCode,
} from '@threadline/store';
