import { PROVIDER_PRESETS, type PresetId } from '@threadline/protocol';
import type { ProviderTarget } from './types';

/** A provider target from a preset (OpenAI, OpenRouter, DeepSeek, Ollama, LM Studio, custom), with overrides. */
export function profileFromPreset(
  preset: PresetId,
  overrides: Partial<ProviderTarget> = {},
): ProviderTarget & { contextWindow: number; needsKey: boolean } {
  const p = PROVIDER_PRESETS[preset];
  return {
    preset,
    baseUrl: p.baseUrl,
    model: p.model,
    compactionModel: null,
    contextWindow: p.contextWindow,
    needsKey: p.needsKey,
    ...overrides,
  };
}
