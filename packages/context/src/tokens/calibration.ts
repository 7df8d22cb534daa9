/**
 * Our estimate (tiktoken or chars/4) and the provider's `usage.prompt_tokens` differ: unknown
 * tokenizers, hidden tool schemas, provider-side framing. After each call the runtime feeds both
 * in; the calibrated estimate scales ours by a smoothed ratio, and debug shows both.
 */
export interface CalibrationState {
  /** provider / estimate, smoothed; 1 until a sample arrives. */
  ratio: number;
  samples: number;
}

export const INITIAL_CALIBRATION: CalibrationState = Object.freeze({ ratio: 1, samples: 0 });

/** A single wild sample (a provider counting images, say) may move the ratio only this far. */
const MIN_RATIO = 0.5;
const MAX_RATIO = 2;
/** Weight of a new sample once a few have been seen (exponential moving average). */
const ALPHA = 0.3;

export function observeUsage(
  state: CalibrationState,
  estimated: number,
  providerPromptTokens: number,
): CalibrationState {
  if (!(estimated > 0) || !(providerPromptTokens > 0)) return state;
  const sample = Math.min(MAX_RATIO, Math.max(MIN_RATIO, providerPromptTokens / estimated));
  // The first samples count fully so the meter is right after one turn.
  const alpha = state.samples === 0 ? 1 : Math.max(ALPHA, 1 / (state.samples + 1));
  return { ratio: state.ratio + alpha * (sample - state.ratio), samples: state.samples + 1 };
}

export function calibrated(state: CalibrationState, estimated: number): number {
  return Math.round(estimated * state.ratio);
}
