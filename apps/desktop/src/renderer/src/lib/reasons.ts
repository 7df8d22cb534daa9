import type { TFunction } from 'i18next';
import { parseNotice } from '@threadline/protocol';

type TFn = TFunction;

/**
 * Reason codes from the engine and runtime ("target_not_reached", "summary_failed: <error>") in
 * the user's language; an unknown code is shown as it is rather than hidden.
 */
export function reasonText(reason: string | null | undefined, t: TFn): string {
  if (!reason) return '';
  const i = reason.indexOf(':');
  const code = (i < 0 ? reason : reason.slice(0, i)).trim();
  const detail = i < 0 ? '' : reason.slice(i + 1).trim();
  if (!/^[a-z_]+$/.test(code)) return reason;
  // `step_failed:summarize: <what the provider said>`: the step in words, then its sentence.
  if (code === 'step_failed') {
    const j = detail.indexOf(':');
    const step = j < 0 ? detail : detail.slice(0, j).trim();
    const error = j < 0 ? '' : detail.slice(j + 1).trim();
    if (/^[a-z_]+$/.test(step))
      return t('compaction.reason.step_failed', {
        step: t(`compaction.step.${step}`, { defaultValue: step }),
        detail: error,
      });
  }
  return t(`compaction.reason.${code}`, { defaultValue: reason, detail });
}

/** An error notice of the runtime (`[THREADLINE_ERROR_V1]`) in the user's language, else its text. */
export function errorNoticeText(content: string | null, t: TFn): string {
  const parsed = parseNotice(content);
  if (parsed?.type !== 'error') return content ?? '';
  const p = parsed.payload;
  // A typed provider failure is one sentence of ours with the provider's words in parentheses.
  if (p.type === 'provider_error' && p.kind)
    return t(`chat.error.provider.${p.kind}`, { detail: p.detail ?? '', model: p.model ?? '' });
  return t(`chat.error.notice.${p.type}`, {
    message: p.message ?? '',
    limit: p.limit ?? '?',
    tool: p.tool ?? '',
    command: p.command ?? '',
    ...(p.count !== undefined ? { count: p.count } : {}),
  });
}

/** Whether an error notice is the provider's (its fix is in the provider profile). */
export function providerLink(content: string | null): boolean {
  const parsed = parseNotice(content);
  return parsed?.type === 'error' && parsed.payload.type === 'provider_error';
}

/** The delegate call whose helpers a crash stopped (a `helpers_interrupted` notice), else null. */
export function interruptedCall(content: string | null): string | null {
  const parsed = parseNotice(content);
  return parsed?.type === 'error' && parsed.payload.type === 'helpers_interrupted'
    ? (parsed.payload.toolCallId ?? null)
    : null;
}
