import type { ServerResponse } from 'node:http';
import { sendJson } from './http';
import { countPromptTokens } from './tokens';
import type { RequestMessage } from './types';

/**
 * The endpoints local model servers answer about the window they run a model with, as each
 * really shapes them, and Ollama's silent cut of a prompt over that window:
 * - Ollama: `POST /api/show` (`model_info.<arch>.context_length`, `parameters` "num_ctx N"),
 *   `GET /api/ps` (a loaded model's `context_length`), `POST /api/create` (a model `from` another
 *   with `parameters`); its OpenAI endpoint cuts a prompt over num_ctx from the oldest message on
 *   (system messages kept) and answers as if nothing happened.
 * - LM Studio: `GET /api/v1/models` (`loaded_instances[].config.context_length`,
 *   `max_context_length`), `GET /api/v0/models/{id}` (`state`, `max_context_length`,
 *   `loaded_context_length`).
 * - llama.cpp server: `GET /props` (`default_generation_settings.n_ctx`).
 * - vLLM: `GET /v1/models` with each model's `max_model_len`.
 */
export type LocalServerKind = 'ollama' | 'lmstudio' | 'llamacpp' | 'vllm';

export interface LocalServerOptions {
  kind: LocalServerKind;
  /** The most the model itself takes (Ollama's context_length, LM Studio's max_context_length). */
  contextLength: number;
  /** The window the server runs it with: num_ctx, the loaded context, n_ctx, max_model_len. */
  numCtx: number;
  /** Ollama: num_ctx is in the model's parameters (else it runs with the server's default, said nowhere but /api/ps once loaded). */
  numCtxInParameters?: boolean;
  /** Ollama: the model is loaded (listed by /api/ps with its context_length). */
  loaded?: boolean;
}

export interface LocalServerState {
  options: LocalServerOptions;
  /** Ollama models made with /api/create: name → num_ctx. */
  created: Map<string, { from: string; numCtx: number }>;
}

export function localServerState(options: LocalServerOptions): LocalServerState {
  return { options, created: new Map() };
}

/** The window a chat request for `model` runs with on this server. */
export function windowFor(local: LocalServerState, model: string): number {
  return local.created.get(model)?.numCtx ?? local.options.numCtx;
}

/**
 * Ollama's cut of a prompt over its window: the system messages and the newest messages that fit
 * are kept, the older ones dropped, and nothing says so. Null when it fits.
 */
export function silentlyCut(
  messages: RequestMessage[],
  tools: unknown[],
  window: number,
): { messages: RequestMessage[]; dropped: number } | null {
  if (countPromptTokens(messages, tools) <= window) return null;
  const system = messages.filter((m) => m.role === 'system');
  const rest = messages.filter((m) => m.role !== 'system');
  let start = 0;
  while (start < rest.length - 1 && countPromptTokens([...system, ...rest.slice(start)], tools) > window) start++;
  return { messages: [...system, ...rest.slice(start)], dropped: start };
}

const modelNamed = (body: unknown): string | null => {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const m = b['model'] ?? b['name'];
  return typeof m === 'string' ? m : null;
};

/**
 * Answers a local server's own endpoint, or returns false when the path is not one of them.
 * `models`: the model ids the server has.
 */
export function answerLocal(
  local: LocalServerState,
  models: readonly string[],
  method: string,
  path: string,
  raw: string,
  res: ServerResponse,
): boolean {
  const o = local.options;
  let body: unknown = undefined;
  try {
    body = raw.length > 0 ? JSON.parse(raw) : undefined;
  } catch {
    body = undefined;
  }
  const has = (m: string): boolean => models.includes(m) || local.created.has(m);
  if (o.kind === 'ollama') {
    if (method === 'POST' && path === '/api/show') {
      const m = modelNamed(body);
      if (m === null || !has(m)) {
        sendJson(res, 404, { error: `model '${m ?? ''}' not found` });
        return true;
      }
      const made = local.created.get(m);
      const numCtx = made?.numCtx ?? (o.numCtxInParameters ? o.numCtx : null);
      sendJson(res, 200, {
        modelfile: `FROM ${made?.from ?? m}\n${numCtx !== null ? `PARAMETER num_ctx ${numCtx}\n` : ''}`,
        parameters: [
          numCtx !== null ? `num_ctx                        ${numCtx}` : '',
          'stop                           "<|im_end|>"',
        ]
          .filter(Boolean)
          .join('\n'),
        template: '{{ .Prompt }}',
        details: { format: 'gguf', family: 'qwen2', parameter_size: '7.6B', quantization_level: 'Q4_K_M' },
        model_info: {
          'general.architecture': 'qwen2',
          'general.parameter_count': 7615616512,
          'qwen2.context_length': o.contextLength,
          'qwen2.embedding_length': 3584,
        },
        capabilities: ['completion', 'tools'],
        modified_at: '2025-01-01T00:00:00Z',
      });
      return true;
    }
    if (method === 'GET' && path === '/api/ps') {
      sendJson(res, 200, {
        models: o.loaded
          ? models.map((m) => ({
              name: m,
              model: m,
              size: 6_000_000_000,
              digest: 'f'.repeat(64),
              details: { format: 'gguf', family: 'qwen2' },
              expires_at: '2099-01-01T00:00:00Z',
              size_vram: 6_000_000_000,
              context_length: o.numCtx,
            }))
          : [],
      });
      return true;
    }
    if (method === 'POST' && path === '/api/create') {
      const b = (body ?? {}) as { model?: unknown; from?: unknown; parameters?: { num_ctx?: unknown } };
      const from = typeof b.from === 'string' ? b.from : null;
      const numCtx = typeof b.parameters?.num_ctx === 'number' ? b.parameters.num_ctx : null;
      if (typeof b.model !== 'string' || from === null || !has(from) || numCtx === null) {
        sendJson(res, 400, { error: 'invalid create request' });
        return true;
      }
      local.created.set(b.model, { from, numCtx: Math.min(numCtx, o.contextLength) });
      sendJson(res, 200, { status: 'success' });
      return true;
    }
    return false;
  }
  if (o.kind === 'lmstudio') {
    if (method === 'GET' && path === '/api/v1/models') {
      sendJson(res, 200, {
        models: models.map((m) => ({
          type: 'llm',
          publisher: 'lmstudio-community',
          key: m,
          display_name: m,
          architecture: 'qwen2',
          quantization: { name: 'Q4_K_M', bits_per_weight: 4 },
          size_bytes: 4_683_073_184,
          params_string: '7B',
          loaded_instances: [{ id: m, config: { context_length: o.numCtx, parallel: 1 } }],
          max_context_length: o.contextLength,
          format: 'gguf',
          capabilities: { vision: false, trained_for_tool_use: true },
        })),
      });
      return true;
    }
    const one = /^\/api\/v0\/models\/(.+)$/.exec(path);
    if (method === 'GET' && one) {
      const m = decodeURIComponent(one[1]!);
      if (!has(m)) {
        sendJson(res, 404, { error: `model ${m} not found` });
        return true;
      }
      sendJson(res, 200, {
        id: m,
        object: 'model',
        type: 'llm',
        publisher: 'lmstudio-community',
        arch: 'qwen2',
        compatibility_type: 'gguf',
        quantization: 'Q4_K_M',
        state: 'loaded',
        max_context_length: o.contextLength,
        loaded_context_length: o.numCtx,
      });
      return true;
    }
    return false;
  }
  if (o.kind === 'llamacpp' && method === 'GET' && path === '/props') {
    sendJson(res, 200, {
      default_generation_settings: { n_ctx: o.numCtx, n_predict: -1, temperature: 0.8 },
      total_slots: 1,
      model_path: `/models/${models[0] ?? 'model'}.gguf`,
      chat_template: '{{ messages }}',
      build_info: 'b6000-fake',
    });
    return true;
  }
  return false;
}
