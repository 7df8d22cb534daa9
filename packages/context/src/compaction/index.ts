export * from './compact';
export * from './preview';
export * from './prompts';
export * from './strategies';
export * from './triggers';
export * from './types';
export { buildUnits, DEFAULT_PROTECTED_TOOLS, isAbortMarker, type Unit } from './units';
export { prunedPlaceholder } from './steps/pruning';
export { segmentsOf } from './steps/monologues';
export { elideToolOutputsMiddleOut, TOOL_REMOVAL_STEPS, SummaryOverflowError } from './steps/fold';
export { extractiveSummary, extractiveSummarizer } from './extractive';
export {
  buildLedger,
  carriedOf,
  carriedSet,
  renderLedger,
  LEDGER_HEADER,
  USER_WORDS_HEADER,
  type Ledger,
  type LedgerFile,
  type LedgerUser,
} from './ledger';
export { CUT_KEEP_TOKENS } from './steps/cut';
export {
  instructionSentences,
  intentRetention,
  isInstructionSentence,
  isUserWords,
  isChitchat,
  sentencesOf,
  shortenUserMessage,
  taskMessageIds,
  taskHead,
  TASK_HEAD_CHARS,
  type IntentRetention,
} from './userWords';
export { messageKeepTokens } from './steps/cutMessages';
