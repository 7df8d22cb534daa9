/** The runtime notice `[CFPM_RUNTIME_V1] {json}` after each refresh, and visibility parsing. */
import {
  RUNTIME_NOTICE_PREFIX,
  formatNotice,
  type RuntimeNoticePayload,
  type VisibilityLevel,
} from '@threadline/protocol';
import type { RefreshResult } from './types';

const ALIASES: Record<VisibilityLevel, readonly string[]> = {
  off: ['off', 'none', 'disable', 'disabled', '0', 'false', 'no'],
  brief: ['brief', '1', 'on', 'true', 'yes'],
  debug: ['debug', 'verbose', 'full', '2'],
};

/** Settings/env value → level with its aliases (docs/glossary.md, visibility level); null when it is none of them. */
export function parseVisibility(value: unknown): VisibilityLevel | null {
  if (typeof value === 'number') value = String(value);
  if (typeof value === 'boolean') value = value ? 'brief' : 'off';
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  for (const level of ['off', 'brief', 'debug'] as const) if (ALIASES[level].includes(v)) return level;
  return null;
}

/**
 * Settings/env value → level. Unknown or empty values give `fallback` (the default `brief`), so
 * a typo in a setting never silences or floods the chat (the CLI refuses them instead).
 */
export function normalizeVisibility(value: unknown, fallback: VisibilityLevel = 'brief'): VisibilityLevel {
  return parseVisibility(value) ?? fallback;
}

type NoticeSource = Pick<
  RefreshResult,
  'mode' | 'reason' | 'acceptedCount' | 'rejectedCount' | 'prunedCount' | 'factCount' | 'rejectedReasonBreakdown'
> &
  Partial<Pick<RefreshResult, 'net'>>;

/** null when the visibility says no notice: off always; brief when nothing happened. */
export function formatRuntimeNotice(result: NoticeSource, visibility: VisibilityLevel | string): string | null {
  const level = normalizeVisibility(visibility);
  if (level === 'off') return null;
  const happened =
    result.acceptedCount > 0 || result.rejectedCount > 0 || result.prunedCount > 0 || result.mode !== 'noop';
  if (level === 'brief' && !happened) return null;
  const payload: RuntimeNoticePayload = {
    version: 'v1',
    verbosity: level,
    reason: result.reason,
    mode: result.mode,
    acceptedCount: result.acceptedCount,
    rejectedCount: result.rejectedCount,
    prunedCount: result.prunedCount,
    factCount: result.factCount,
    // Reasons are debug detail; brief carries the counts only.
    rejectedReasonBreakdown: level === 'debug' ? { ...result.rejectedReasonBreakdown } : {},
    ...(result.net ? { added: result.net.added, updated: result.net.updated, retired: result.net.retired } : {}),
  };
  return formatNotice(RUNTIME_NOTICE_PREFIX, payload);
}
