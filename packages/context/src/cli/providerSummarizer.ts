import { buildSummaryRequestMessages, type Summarizer } from '../compaction/prompts';

/** An HTTP error that keeps the provider's status and body, so isContextLimitError can read them. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    super(`provider answered ${status}: ${text.slice(0, 500)}`);
    this.name = 'ProviderError';
  }
}

/**
 * A summarizer that calls an OpenAI-compatible `/chat/completions` with global fetch. It lives in
 * cli/ because the engine itself does no I/O; the agent has its own (openai SDK) client.
 */
export function providerSummarizer(opts: {
  baseUrl: string;
  model: string;
  apiKey?: string;
  fetchImpl?: typeof fetch;
}): Summarizer {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const doFetch = opts.fetchImpl ?? fetch;
  return async (req) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.apiKey) headers['authorization'] = `Bearer ${opts.apiKey}`;
    const res = await doFetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        model: opts.model,
        messages: buildSummaryRequestMessages(req),
        temperature: 0.2,
        max_tokens: req.maxSummaryTokens * 2,
      }),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* keep the text */
    }
    if (!res.ok) throw new ProviderError(res.status, body);
    const content = (body as { choices?: Array<{ message?: { content?: string | null } }> }).choices?.[0]?.message
      ?.content;
    if (typeof content !== 'string' || content.trim() === '') throw new Error('provider returned no summary text');
    return content;
  };
}
