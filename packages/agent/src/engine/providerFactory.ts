import type { ProviderFactory } from '../ports';
import { minimalProviderClient } from './minimalProvider';

/** The default client of a profile. */
export const defaultProviderFactory: ProviderFactory = (profile, apiKey) => minimalProviderClient(profile, apiKey);
