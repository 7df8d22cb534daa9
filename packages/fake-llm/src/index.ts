export { startFakeLlm, type FakeLlm, type FakeLlmOptions } from './server';
export { parseRulesFile } from './control';
export { contextLengthError, injectedError, type ErrorAnswer } from './errors';
export { SUMMARY_MARKER, isSummaryRequest, isSummaryText, deterministicSummary } from './summary';
export { defaultReply } from './rules';
export { countPromptTokens, countText } from './tokens';
export { PromptCache } from './promptCache';
export type { UsageStyle } from './completion';
export * from './types';
