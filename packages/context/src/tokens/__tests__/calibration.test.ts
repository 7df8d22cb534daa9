import { describe, expect, it } from 'vitest';
import { calibrated, INITIAL_CALIBRATION, observeUsage } from '..';

describe('usage calibration', () => {
  it('leaves the estimate alone until the provider reports usage', () => {
    expect(calibrated(INITIAL_CALIBRATION, 1000)).toBe(1000);
  });

  it('adopts the first sample and smooths later ones', () => {
    const one = observeUsage(INITIAL_CALIBRATION, 1000, 1200);
    expect(calibrated(one, 1000)).toBe(1200);
    const two = observeUsage(one, 1000, 1000);
    expect(two.ratio).toBeGreaterThan(1);
    expect(two.ratio).toBeLessThan(1.2);
    expect(two.samples).toBe(2);
  });

  it('clamps wild samples and ignores empty ones', () => {
    expect(observeUsage(INITIAL_CALIBRATION, 100, 100_000).ratio).toBe(2);
    expect(observeUsage(INITIAL_CALIBRATION, 0, 500)).toBe(INITIAL_CALIBRATION);
    expect(observeUsage(INITIAL_CALIBRATION, 500, 0)).toBe(INITIAL_CALIBRATION);
  });
});
