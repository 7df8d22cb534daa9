// A minimal provider client over the openai SDK, used until (or unless) ./provider provides the
// full one (retries with backoff, presets, typed errors).
import OpenAI from 'openai';
import type { ChatMessage, ProviderProfile, ToolCall } from '@threadline/protocol';
import type { ProviderClient, StreamRequest, StreamResult } from '../ports';

type SdkMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

function toSdk(messages: ChatMessage[]): SdkMessage[] {
  return messages.map((m) => {
    if (m.role === 'tool') return { role: 'tool', content: m.content ?? '', tool_call_id: m.tool_call_id ?? '' };
    if (m.role === 'assistant') {
      const out: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = { role: 'assistant', content: m.content ?? '' };
      if (m.tool_calls && m.tool_calls.length > 0) {
        out.tool_calls = m.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } }));
      }
      return out;
    }
    return { role: m.role, content: m.content ?? '' };
  });
}

export function minimalProviderClient(profile: ProviderProfile, apiKey: string | null): ProviderClient {
  const sdk = new OpenAI({ baseURL: profile.baseUrl, apiKey: apiKey ?? 'not-needed', maxRetries: 2, timeout: 120_000 });
  return {
    async streamChat(req: StreamRequest): Promise<StreamResult> {
      const stream = await sdk.chat.completions.create(
        {
          model: profile.model,
          messages: toSdk(req.messages),
          tools:
            req.tools.length > 0
              ? req.tools.map((t) => ({ type: 'function' as const, function: { ...t.function, parameters: { ...t.function.parameters } } }))
              : undefined,
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal: req.signal },
      );
      let content = '';
      let finishReason: string | null = null;
      let usage: StreamResult['usage'] = null;
      const calls: { id: string; name: string; args: string }[] = [];
      for await (const chunk of stream) {
        if (chunk.usage) usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.finish_reason) finishReason = choice.finish_reason;
        const delta = choice.delta;
        if (delta?.content) {
          content += delta.content;
          req.onDelta(delta.content);
        }
        for (const tc of delta?.tool_calls ?? []) {
          const slot = (calls[tc.index] ??= { id: '', name: '', args: '' });
          if (tc.id) slot.id = tc.id;
          if (tc.function?.name) slot.name += tc.function.name;
          if (tc.function?.arguments) slot.args += tc.function.arguments;
        }
      }
      const toolCalls: ToolCall[] = calls
        .filter((c) => c !== undefined)
        .map((c, i) => ({ id: c.id || `call_${i}`, type: 'function' as const, function: { name: c.name, arguments: c.args } }));
      return { content, toolCalls, usage, finishReason };
    },
    async complete(req) {
      const res = await sdk.chat.completions.create(
        { model: req.model ?? profile.model, messages: toSdk(req.messages) },
        { signal: req.signal },
      );
      return res.choices[0]?.message?.content ?? '';
    },
    async testConnection() {
      const t0 = Date.now();
      try {
        await sdk.models.list();
        return { ok: true, message: `Connected to ${profile.baseUrl}`, latencyMs: Date.now() - t0 };
      } catch (err) {
        return { ok: false, message: err instanceof Error ? err.message : String(err), latencyMs: null };
      }
    },
  };
}
