import { createProviderClient } from '../provider';
import type { ProviderFactory } from '../ports';

/** The default client of a profile: the openai-SDK client with retries and typed errors. */
export const defaultProviderFactory: ProviderFactory = (profile, apiKey) => createProviderClient(profile, apiKey);
