// @threadline/store: everything Threadline knows, in one SQLite file.
export { openStore } from './openStore';
export { parseEnvOverrides, ENV_VARIABLES } from './settings/envOverrides';
export { SCHEMA_VERSION } from './db/migrations';
export { createFileEncryptor } from './secrets/fileEncryptor';
export { isDamagedDatabase } from './db/damagedDatabase';
export {
  StoreError,
  MEMORY_CAPS,
  type Store,
  type StoreErrorCode,
  type OpenStoreOptions,
  type Encryptor,
  type NewMessage,
  type ListMessagesOptions,
  type MessagesRepo,
  type MessageVersions,
  type SessionsRepo,
  type NewCompaction,
  type CompactionsRepo,
  type NewCandidate,
  type NewSnapshot,
  type MemoryRefresh,
  type MemoryRefreshResult,
  type MemoryEditLogEntry,
  type FactEdit,
  type MemoryRepo,
  type BranchHint,
  type EnvOverride,
  type SettingsRepo,
  type KeyStorage,
  type ProvidersRepo,
  type NewModelCall,
  type ModelCall,
  type SessionCalls,
  type SessionRows,
  type TurnRows,
  type TurnStep,
  type TurnStepResult,
  type TurnsRepo,
  type ModelCallGroup,
  type UsageRepo,
  type RulesRepo,
  type NewRule,
  type SessionSandboxRepo,
  type ProcessesRepo,
  type ToolProcess,
  type McpServerRecord,
  type McpToolPin,
  type McpServersRepo,
  type AttachmentsRepo,
  type NewAttachment,
  type StoredAttachment,
} from './types';
export type { CheckpointsRepo, NewCheckpoint } from './checkpointTypes';
export { PROJECT_CAPS, type ProjectMemoryRepo, type ProposedFact, type FactCheck } from './projectTypes';
export type { HeldFilesRepo, NewHeldFile } from './heldTypes';
