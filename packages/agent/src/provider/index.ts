// The provider client: one chat API over any OpenAI-compatible endpoint (SPEC §7).
export { createProviderClient, NO_KEY, type ProviderClient } from './client';
export { ProviderError, classifyError, parseRetryAfter, type ProviderErrorKind } from './errors';
export {
  withRetries,
  retryDelay,
  abortableSleep,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type RetryInfo,
} from './retry';
export { ToolCallAssembler, type ToolCallDelta } from './assemble';
export { toSdkMessages } from './messages';
export { profileFromPreset } from './presets';
export type * from './types';
