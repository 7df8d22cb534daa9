/**
 * The real window of a local model server, read from the server itself: Ollama (`/api/show`: the
 * model's `context_length` and the `num_ctx` it runs with, from its parameters or, once loaded,
 * `/api/ps`), LM Studio (`/api/v1/models`: the loaded instance's `context_length`; `/api/v0`
 * before 0.4), llama.cpp's server (`/props`: `n_ctx`) and vLLM (`/v1/models`: `max_model_len`).
 * These endpoints are outside the OpenAI API the SDK speaks: plain fetch, to the profile's own
 * host only, zod on every answer, a short timeout; nothing found is null, never an error.
 *
 * Ollama runs a model with its own num_ctx whatever the request says, and its OpenAI endpoint
 * silently drops what does not fit. When the user wants a larger window, the app creates a model
 * from it with that num_ctx (`POST /api/create`, the way Ollama's docs say to set it) and sends its
 * requests to that one (`requestModel`).
 */
import * as z from 'zod';
import type { PresetId, ServerWindow } from '@threadline/protocol';

export interface ServerWindowTarget {
  preset: PresetId;
  baseUrl: string;
  model: string;
}

export interface ServerWindowOptions {
  fetch?: typeof globalThis.fetch;
  /** Per request (default 3 s): a server that does not answer is no server of that kind. */
  timeoutMs?: number;
  now?: () => number;
}

/** The server's root: the OpenAI base URL without its `/v1`. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

async function getJson(
  url: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; apiKey?: string | null },
  opts: ServerWindowOptions,
): Promise<unknown> {
  const f = opts.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.apiKey) headers['authorization'] = `Bearer ${init.apiKey}`;
  try {
    const res = await f(url, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 3_000),
      redirect: 'error',
    });
    if (!res.ok) return null;
    return (await res.json()) as unknown;
  } catch {
    return null;
  }
}

const Positive = z.number().int().positive();

const OllamaShow = z.object({
  parameters: z.string().optional(),
  model_info: z.record(z.string(), z.unknown()).optional(),
});
const OllamaPs = z.object({
  models: z.array(
    z.object({ name: z.string().optional(), model: z.string().optional(), context_length: Positive.optional() }),
  ),
});
/** Ollama's num_ctx when neither the model nor a loaded runner says (its documented default under 24 GB of VRAM). */
export const OLLAMA_DEFAULT_NUM_CTX = 4_096;

async function ollama(
  t: ServerWindowTarget,
  key: string | null,
  opts: ServerWindowOptions,
): Promise<ServerWindow | null> {
  const root = serverRoot(t.baseUrl);
  const show = OllamaShow.safeParse(
    await getJson(`${root}/api/show`, { method: 'POST', body: { model: t.model }, apiKey: key }, opts),
  );
  if (!show.success) return null;
  const info = show.data.model_info ?? {};
  const maxKey = Object.keys(info).find((k) => k.endsWith('.context_length'));
  const max = maxKey !== undefined ? Positive.safeParse(info[maxKey]) : null;
  const modelMax = max?.success ? max.data : null;
  const param = /^num_ctx\s+(\d+)\s*$/m.exec(show.data.parameters ?? '');
  const base = {
    source: 'ollama' as const,
    model: t.model,
    modelMax,
    checkedAt: (opts.now ?? Date.now)(),
    alias: null,
  };
  if (param) return { ...base, window: Number(param[1]), field: 'num_ctx' };
  const ps = OllamaPs.safeParse(await getJson(`${root}/api/ps`, { apiKey: key }, opts));
  const loaded = ps.success ? ps.data.models.find((m) => m.name === t.model || m.model === t.model) : undefined;
  if (loaded?.context_length) return { ...base, window: loaded.context_length, field: 'context_length_loaded' };
  return {
    ...base,
    window: modelMax === null ? OLLAMA_DEFAULT_NUM_CTX : Math.min(modelMax, OLLAMA_DEFAULT_NUM_CTX),
    field: 'default',
  };
}

const LmStudioV1 = z.object({
  models: z.array(
    z.object({
      key: z.string(),
      max_context_length: Positive.optional(),
      loaded_instances: z
        .array(z.object({ config: z.object({ context_length: Positive.optional() }).optional() }))
        .optional(),
    }),
  ),
});
const LmStudioV0 = z.object({
  max_context_length: Positive.optional(),
  loaded_context_length: Positive.optional(),
});

async function lmstudio(
  t: ServerWindowTarget,
  key: string | null,
  opts: ServerWindowOptions,
): Promise<ServerWindow | null> {
  const root = serverRoot(t.baseUrl);
  const at = (opts.now ?? Date.now)();
  const v1 = LmStudioV1.safeParse(await getJson(`${root}/api/v1/models`, { apiKey: key }, opts));
  const m = v1.success ? v1.data.models.find((x) => x.key === t.model) : undefined;
  if (m) {
    const loaded = m.loaded_instances?.find((i) => i.config?.context_length)?.config?.context_length ?? null;
    return {
      source: 'lmstudio',
      model: t.model,
      window: loaded,
      modelMax: m.max_context_length ?? null,
      field: 'loaded_context_length',
      checkedAt: at,
      alias: null,
    };
  }
  const v0 = LmStudioV0.safeParse(
    await getJson(`${root}/api/v0/models/${encodeURIComponent(t.model)}`, { apiKey: key }, opts),
  );
  if (!v0.success || (v0.data.max_context_length === undefined && v0.data.loaded_context_length === undefined))
    return null;
  return {
    source: 'lmstudio',
    model: t.model,
    window: v0.data.loaded_context_length ?? null,
    modelMax: v0.data.max_context_length ?? null,
    field: 'loaded_context_length',
    checkedAt: at,
    alias: null,
  };
}

const LlamaProps = z.object({ default_generation_settings: z.object({ n_ctx: Positive }) });

async function llamacpp(
  t: ServerWindowTarget,
  key: string | null,
  opts: ServerWindowOptions,
): Promise<ServerWindow | null> {
  const props = LlamaProps.safeParse(await getJson(`${serverRoot(t.baseUrl)}/props`, { apiKey: key }, opts));
  if (!props.success) return null;
  return {
    source: 'llamacpp',
    model: t.model,
    window: props.data.default_generation_settings.n_ctx,
    modelMax: null,
    field: 'n_ctx',
    checkedAt: (opts.now ?? Date.now)(),
    alias: null,
  };
}

const VllmModels = z.object({ data: z.array(z.object({ id: z.string(), max_model_len: Positive.optional() })) });

async function vllm(
  t: ServerWindowTarget,
  key: string | null,
  opts: ServerWindowOptions,
): Promise<ServerWindow | null> {
  const list = VllmModels.safeParse(await getJson(`${serverRoot(t.baseUrl)}/v1/models`, { apiKey: key }, opts));
  const m = list.success ? list.data.data.find((x) => x.id === t.model && x.max_model_len !== undefined) : undefined;
  if (!m?.max_model_len) return null;
  return {
    source: 'vllm',
    model: t.model,
    window: m.max_model_len,
    modelMax: m.max_model_len,
    field: 'max_model_len',
    checkedAt: (opts.now ?? Date.now)(),
    alias: null,
  };
}

/**
 * What the server says about the window it runs the profile's model with, or null (a hosted
 * provider is never asked; a custom address is tried as vLLM, llama.cpp, Ollama, then LM Studio).
 */
export async function readServerWindow(
  t: ServerWindowTarget,
  apiKey: string | null,
  opts: ServerWindowOptions = {},
): Promise<ServerWindow | null> {
  if (t.preset === 'ollama') return ollama(t, apiKey, opts);
  if (t.preset === 'lmstudio') return lmstudio(t, apiKey, opts);
  if (t.preset !== 'custom') return null;
  for (const read of [vllm, llamacpp, ollama, lmstudio]) {
    const found = await read(t, apiKey, opts);
    if (found) return found;
  }
  return null;
}

/** The name of the Ollama model made from `model` to run with `numCtx` (`qwen2.5:7b` → `qwen2.5:7b-ctx32768`). */
export function ollamaWindowModel(model: string, numCtx: number): string {
  return model.includes(':') ? `${model}-ctx${numCtx}` : `${model}:ctx${numCtx}`;
}

/**
 * When the user's window is larger than the num_ctx Ollama runs the model with, the app makes a
 * model from it with that num_ctx (up to the model's own maximum) and its requests go there. The
 * server window then says so (`alias`). Anything else is returned as it is.
 */
export async function withRequestedWindow(
  t: ServerWindowTarget,
  sw: ServerWindow,
  wanted: number,
  apiKey: string | null,
  opts: ServerWindowOptions = {},
): Promise<ServerWindow> {
  if (sw.source !== 'ollama' || sw.window === null || wanted <= sw.window) return sw;
  const numCtx = sw.modelMax !== null ? Math.min(wanted, sw.modelMax) : wanted;
  if (numCtx <= sw.window) return sw;
  const alias = ollamaWindowModel(t.model, numCtx);
  const made = await getJson(
    `${serverRoot(t.baseUrl)}/api/create`,
    { method: 'POST', body: { model: alias, from: t.model, parameters: { num_ctx: numCtx }, stream: false }, apiKey },
    opts,
  );
  if (made === null) return sw;
  return { ...sw, window: numCtx, field: 'num_ctx', alias };
}

/** The model requests go to: the Ollama model made for the user's window, when there is one for this model. */
export function requestModel(p: { model: string; serverWindow?: ServerWindow | null }): string {
  const sw = p.serverWindow;
  return sw?.alias && sw.model === p.model ? sw.alias : p.model;
}
