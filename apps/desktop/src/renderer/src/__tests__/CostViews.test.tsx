import { seed } from './fixtures';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { ResendEstimate, SessionCost, UsageTotals } from '@threadline/protocol';
import i18n from '../i18n';
import { DividerCost, ResendWarning, SessionCostBreakdown } from '../components/CostViews';
import { useAppStore } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';

const totals = (t: Partial<UsageTotals>): UsageTotals => ({
  calls: 3,
  promptTokens: 12_000,
  cachedTokens: 9_000,
  completionTokens: 400,
  cost: 0.0123,
  unpricedCalls: 0,
  ...t,
});

const cost = (t: Partial<UsageTotals> = {}): SessionCost => ({
  sessionId: 's1',
  total: totals(t),
  summaries: totals({ calls: 1, promptTokens: 3000, cachedTokens: 2500, completionTokens: 200, cost: 0.002 }),
  compactions: { c1: totals({ calls: 1, promptTokens: 3000, cachedTokens: 2500, completionTokens: 200, cost: 0.002 }) },
  lastCallAt: 1000,
});

describe('cost views', () => {
  beforeEach(() => void i18n.changeLanguage('en'));
  afterEach(() => {
    cleanup();
    setBridge(null);
  });

  it('the meter shows tokens in and out, the cache hit rate and the cost; no price is "unknown"', () => {
    useAppStore.setState(seed({ cost: { s1: cost() } }));
    const { rerender } = render(<SessionCostBreakdown sessionId="s1" />);
    expect(screen.getByTestId('cost-tokens-in').textContent).toBe('12K');
    expect(screen.getByTestId('cost-cache-rate').textContent).toBe('9.0K (75%)');
    expect(screen.getByTestId('cost-tokens-out').textContent).toBe('400');
    expect(screen.getByTestId('cost-total').textContent).toBe('$0.012');
    useAppStore.setState(seed({ cost: { s1: cost({ cost: null, unpricedCalls: 3 }) } }));
    rerender(<SessionCostBreakdown sessionId="s1" />);
    expect(screen.getByTestId('cost-total').textContent).toBe('unknown');
    void i18n.changeLanguage('zh-CN');
    rerender(<SessionCostBreakdown sessionId="s1" />);
    expect(screen.getByTestId('cost-total').textContent).toBe('未知');
  });

  it('a divider says what its summary cost', () => {
    useAppStore.setState(seed({ cost: { s1: cost() } }));
    render(<DividerCost sessionId="s1" compactionId="c1" />);
    expect(screen.getByTestId('divider-cost').textContent).toContain('summary 3.0K in (83% cached), 200 out, $0.0020');
  });

  it('warns before an expensive resend and offers to compact first', async () => {
    const estimate: ResendEstimate = {
      sessionId: 's1',
      idleMs: 12 * 60_000,
      ttlMs: 5 * 60_000,
      expired: true,
      promptTokens: 45_000,
      cost: 0.09,
      cachedCost: 0.005,
      warn: true,
    };
    const fake = createFakeBridge({
      'usage.resendEstimate': () => estimate,
      'compaction.run': () => ({ ok: true, compaction: null, reason: null }),
      'context.usage': () => null,
      'compaction.list': () => [],
      'usage.session': () => cost(),
      'messages.list': () => [],
    });
    setBridge(fake.bridge);
    useAppStore.setState(seed({ cost: { s1: cost() }, busy: {}, compacting: {} }));
    const { rerender } = render(<ResendWarning sessionId="s1" typing={false} />);
    expect(screen.queryByTestId('resend-warning')).toBeNull();
    rerender(<ResendWarning sessionId="s1" typing />);
    const warning = await screen.findByTestId('resend-warning');
    expect(warning.textContent).toContain('12 min idle');
    expect(warning.textContent).toContain('45K tokens');
    expect(warning.textContent).toContain('about $0.090 instead of $0.0050');
    fireEvent.click(screen.getByTestId('resend-compact'));
    await waitFor(() => expect(fake.calls.some((c) => c.route === 'compaction.run')).toBe(true));
  });

  it('says nothing while the cache is likely warm', async () => {
    const fake = createFakeBridge({
      'usage.resendEstimate': () => ({
        sessionId: 's1',
        idleMs: 60_000,
        ttlMs: 300_000,
        expired: false,
        promptTokens: 45_000,
        cost: 0.09,
        cachedCost: 0.0225,
        warn: false,
      }),
    });
    setBridge(fake.bridge);
    useAppStore.setState(seed({ cost: { s1: cost() }, busy: {}, compacting: {} }));
    render(<ResendWarning sessionId="s1" typing />);
    await waitFor(() => expect(fake.calls.some((c) => c.route === 'usage.resendEstimate')).toBe(true));
    expect(screen.queryByTestId('resend-warning')).toBeNull();
  });
});
