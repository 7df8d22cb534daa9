// The provider client: one chat API over any OpenAI-compatible endpoint.
export { createProviderClient, NO_KEY, type ProviderClient } from './client';
export { ProviderError, classifyError, requestedWaitMs, type ProviderErrorKind } from './errors';
export { DEFAULT_MAX_RETRIES, type RetryInfo } from './retry';
export { ToolCallAssembler, type ToolCallDelta } from './assemble';
export { toSdkMessages } from './messages';
export { profileFromPreset } from './presets';
export type * from './types';
