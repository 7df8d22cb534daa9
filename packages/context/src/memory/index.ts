/**
 * CFPM session memory: deterministic drafts → decisions → facts,
 * the per-turn injection block, the checkpoint snapshot and the runtime notice. Pure functions:
 * time and ids are injected.
 */
export * from './constants';
export type { MemoryDraft, DraftOrigin, DraftDecision, RefreshInput, RefreshResult, ProjectPromotion } from './types';
export { extractDrafts } from './extract';
export { evaluateDraft, factKey, seenKey, type EvaluationContext } from './evaluate';
export { refreshMemory, latestStepStart, capCandidates, capSnapshots, memoryDelta } from './refresh';
export { mergeDecisions, pruneFacts, capAutoFacts, isActiveFact, type MergeOutcome, type PruneOutcome } from './merge';
export { buildMemoryBlock } from './block';
export { projectPromotions } from './promote';
export { buildProjectBlock, isInjectable, PROJECT_BLOCK_HEADER, type ProjectBlock } from './projectBlock';
export { commandPurpose, commandParts } from './commandPurpose';
export { negatedTerms, standingSentences, confirmedDecision, ownText } from './standing';
export { buildCheckpointSnapshot } from './checkpoint';
export { formatRuntimeNotice, normalizeVisibility, parseVisibility } from './notice';
export { isPathLike, isDateOnly, findPaths, normalizePath } from './paths';
export { writtenPaths } from './shellWrites';
export { isShellToolName } from './shellTool';
export {
  editedFiles,
  pathRecall,
  messagesText,
  simulateCheckpoint,
  checkpointRecall,
  type RecallResult,
  type SimulatedCheckpoint,
  type CheckpointRecall,
} from './recall';
export {
  LabelledFileSchema,
  LabelledSessionSchema,
  labelMatches,
  scoreSession,
  totals as labelledTotals,
  type LabelledSession,
  type LabelledScore,
} from './labelled';
