/**
 * Is a provider error "the prompt does not fit in the context window"? (The recovery trigger.)
 * Patterns are the providers' own wording; each is specific enough that rate limits
 * ("exceeded your current quota", "tokens per min") and payload-size errors never match.
 */

/** Error codes/types that mean exactly this. */
const CONTEXT_CODES = new Set([
  'context_length_exceeded', // OpenAI, Azure OpenAI, OpenRouter, DeepSeek
  'model_context_window_exceeded', // OpenAI Responses API
  'exceed_context_size_error', // llama.cpp server (LM Studio, Ollama's runner)
  'context_window_exceeded',
]);

const CONTEXT_PATTERNS: RegExp[] = [
  // OpenAI / Azure / DeepSeek / vLLM: "This model's maximum context length is 8192 tokens."
  // OpenRouter: "This endpoint's maximum context length is 131072 tokens."
  /maximum context length is \d+ tokens/i,
  // OpenAI Responses: "Your input exceeds the context window of this model."
  /exceeds? the context window/i,
  /context[ _]length[ _]exceeded/i,
  /context window (?:is |was |has been )?(?:exceeded|full)/i,
  // Anthropic: "prompt is too long: 215000 tokens > 200000 maximum"
  /prompt is too long/i,
  // Anthropic: "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000"
  /exceeds? (?:the )?context limit/i,
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
  /input token count.{0,40}exceeds the maximum number of tokens/i,
  // vLLM ≥ 0.6: "The decoder prompt (length 9000) is longer than the maximum model length of 8192."
  /longer than the maximum model length/i,
  // vLLM: "Input prompt (9000 tokens) is too long and exceeds limit of 8192"
  /prompt \(\d+ tokens\) is too long/i,
  // Ollama: "input length exceeds the context length" / "prompt too long; exceeded max context length by 12 tokens"
  /exceeds? (?:the )?(?:maximum |max )?context length/i,
  /exceeded max context length/i,
  // llama.cpp / LM Studio: "the request exceeds the available context size, try increasing it"
  /exceeds? the available context size/i,
  // LM Studio: "Trying to keep the first 5000 tokens when context the overflows. However, the model
  // is loaded with context length of only 4096 tokens, which is not enough."
  /context (?:the )?overflows/i,
  /loaded with context length of only \d+ tokens/i,
  // Mistral API (and vLLM forks): "too large for model with 32768 maximum context length"
  /too large for model with \d+ maximum context length/i,
  /reduce the length of the (?:messages|prompt|input)/i,
];

/** HTTP statuses that are never a context overflow, whatever the text says. */
const NEVER_STATUSES = new Set([401, 403, 404, 429]);

function collectText(err: unknown, out: string[], depth = 0): { status?: number; codes: string[] } {
  const codes: string[] = [];
  let status: number | undefined;
  if (depth > 4 || err === null || err === undefined) return { codes };
  if (typeof err === 'string') {
    out.push(err);
    // A raw response body: look inside the JSON too.
    const t = err.trim();
    if (t.startsWith('{')) {
      try {
        const r = collectText(JSON.parse(t) as unknown, out, depth + 1);
        codes.push(...r.codes);
        status ??= r.status;
      } catch {
        /* not JSON: the text itself was pushed */
      }
    }
    return { codes, status };
  }
  if (typeof err !== 'object') return { codes };
  if (Array.isArray(err)) {
    for (const item of err.slice(0, 8)) {
      const r = collectText(item, out, depth + 1);
      codes.push(...r.codes);
      status ??= r.status;
    }
    return { codes, status };
  }
  const o = err as Record<string, unknown>;
  for (const k of ['message', 'detail', 'error_message', 'msg']) if (typeof o[k] === 'string') out.push(o[k] as string);
  for (const k of ['code', 'type', 'error_code'])
    if (typeof o[k] === 'string') codes.push((o[k] as string).toLowerCase());
  for (const k of ['status', 'statusCode', 'status_code']) if (typeof o[k] === 'number') status ??= o[k] as number;
  for (const k of ['error', 'body', 'cause', 'response', 'data', 'metadata', 'raw']) {
    if (k in o) {
      const r = collectText(o[k], out, depth + 1);
      codes.push(...r.codes);
      status ??= r.status;
    }
  }
  return { codes, status };
}

export function isContextLimitError(err: unknown): boolean {
  const texts: string[] = [];
  const { codes, status } = collectText(err, texts);
  if (status !== undefined && NEVER_STATUSES.has(status)) return false;
  if (codes.some((c) => CONTEXT_CODES.has(c))) return true;
  return texts.some((t) => CONTEXT_PATTERNS.some((p) => p.test(t)));
}

/** What a context-limit error states: the window the provider enforces, and what was asked when it says. */
export interface StatedContextLimit {
  /** The provider's window in its tokens. */
  limit: number;
  /** The prompt (or prompt + completion) size the provider measured, when stated. */
  requested: number | null;
}

const N = '(\\d[\\d,_]*)';
/**
 * Wordings that state the limit (group `limit`) and sometimes the request (group `req`, or
 * `req` + `add` for "prompt + max_tokens"). Numbers may carry thousands separators.
 */
const LIMIT_PATTERNS: RegExp[] = [
  // OpenAI / Azure / DeepSeek / vLLM / OpenRouter: "maximum context length is 16000 tokens. However, you requested 17000 tokens" / "your messages resulted in 17000 tokens"
  new RegExp(
    `maximum context length is ${N} tokens(?:[^\\d]{0,80}?(?:requested|resulted in|you have) ${N} tokens)?`,
    'i',
  ),
  // Anthropic: "prompt is too long: 215000 tokens > 200000 maximum"; generic "N tokens > M maximum"
  new RegExp(`${N} tokens > ${N} maximum`, 'i'),
  // Anthropic: "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000"
  new RegExp(`context limit: ${N} \\+ ${N} > ${N}`, 'i'),
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
  new RegExp(`input token count \\(?${N}\\)? exceeds the maximum number of tokens allowed \\(?${N}\\)?`, 'i'),
  // vLLM: "The decoder prompt (length 9000) is longer than the maximum model length of 8192."
  new RegExp(`\\(length ${N}\\) is longer than the maximum model length of ${N}`, 'i'),
  new RegExp(`longer than the maximum model length of ${N}`, 'i'),
  // vLLM: "Input prompt (9000 tokens) is too long and exceeds limit of 8192"
  new RegExp(`prompt \\(${N} tokens\\) is too long and exceeds (?:the )?limit of ${N}`, 'i'),
  // llama.cpp / Ollama runner: "the request (9000 tokens) exceeds the available context size (8192 tokens)"
  new RegExp(`request \\(${N} tokens\\) exceeds the available context size \\(${N} tokens\\)`, 'i'),
  // Ollama: "requested 9000 tokens, but the context length is 8192" / "context length of 8192"
  new RegExp(
    `(?:input|prompt|requested) (?:length )?(?:of )?${N} tokens?,? (?:but |exceeds )?(?:the )?(?:maximum )?context length (?:is |of )${N}`,
    'i',
  ),
  // LM Studio: "the model is loaded with context length of only 4096 tokens"
  new RegExp(`loaded with context length of only ${N} tokens`, 'i'),
  // Mistral: "too large for model with 32768 maximum context length"
  new RegExp(`too large for model with ${N} maximum context length`, 'i'),
];

const num = (s: string | undefined): number | null => {
  if (s === undefined) return null;
  const n = Number(s.replace(/[,_]/g, ''));
  return Number.isFinite(n) && n > 0 ? n : null;
};

/**
 * The window a context-limit error states ("maximum context length is 16000 tokens", "… tokens >
 * 200000 maximum", Gemini's, vLLM's, llama.cpp's, Ollama's, LM Studio's and Mistral's wordings),
 * or null when it states none. Only called for errors `isContextLimitError` accepted.
 */
export function statedContextLimit(err: unknown): StatedContextLimit | null {
  const texts: string[] = [];
  collectText(err, texts);
  for (const t of texts) {
    for (const [i, p] of LIMIT_PATTERNS.entries()) {
      const m = p.exec(t);
      if (!m) continue;
      const g = m.slice(1).map(num);
      let limit: number | null;
      let requested: number | null = null;
      switch (i) {
        case 0:
          [limit, requested] = [g[0]!, g[1] ?? null];
          break;
        case 2:
          limit = g[2]!;
          requested = g[0] !== null && g[1] !== null ? g[0]! + g[1]! : null;
          break;
        case 5:
        case 9:
        case 10:
          limit = g[0]!;
          break;
        default:
          [requested, limit] = [g[0] ?? null, g[1]!];
      }
      if (limit !== null && limit > 0) return { limit, requested };
    }
  }
  return null;
}

/** A typed error a summarizer (or provider wrapper) can throw so classification is trivial. */
export class ContextLimitError extends Error {
  readonly code = 'context_length_exceeded';
  constructor(message = 'context_length_exceeded: the prompt does not fit in the context window') {
    super(message);
    this.name = 'ContextLimitError';
  }
}
