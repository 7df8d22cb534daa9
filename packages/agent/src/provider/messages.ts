import type OpenAI from 'openai';
import type { ChatMessage, ImagePart } from '@threadline/protocol';

/** An image part's `data:` URL (null: the bytes are gone; the model then reads a placeholder). */
export type ImageResolver = (part: ImagePart) => string | null;

export type SdkMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** A user message's text and images as content parts: the text first, then each image. */
function userParts(
  m: ChatMessage,
  resolve: ImageResolver | undefined,
): OpenAI.Chat.Completions.ChatCompletionContentPart[] {
  const parts: OpenAI.Chat.Completions.ChatCompletionContentPart[] = [];
  const missing: string[] = [];
  for (const im of m.images ?? []) {
    const url = resolve?.(im) ?? null;
    if (url) parts.push({ type: 'image_url', image_url: { url } });
    else missing.push(`[image: ${im.name}]`);
  }
  const text = [m.content ?? '', ...missing].filter((t) => t !== '').join('\n');
  return text === '' ? parts : [{ type: 'text', text }, ...parts];
}

/**
 * Our chat messages as the SDK types them (tool messages take no `name`; null content → '').
 * A user message with images becomes content parts (`image_url` with a data URL from `resolve`).
 */
export function toSdkMessages(messages: ChatMessage[], resolve?: ImageResolver): SdkMessage[] {
  return messages.map((m): SdkMessage => {
    switch (m.role) {
      case 'tool':
        return { role: 'tool', content: m.content ?? '', tool_call_id: m.tool_call_id ?? '' };
      case 'assistant': {
        const out: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = {
          role: 'assistant',
          content: m.content,
        };
        if (m.tool_calls && m.tool_calls.length > 0) {
          out.tool_calls = m.tool_calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.function.name, arguments: c.function.arguments },
          }));
        } else if (m.content === null) out.content = '';
        return out;
      }
      case 'system':
        return { role: 'system', content: m.content ?? '' };
      case 'user':
        if (m.images && m.images.length > 0)
          return m.name
            ? { role: 'user', content: userParts(m, resolve), name: m.name }
            : { role: 'user', content: userParts(m, resolve) };
        return m.name
          ? { role: 'user', content: m.content ?? '', name: m.name }
          : { role: 'user', content: m.content ?? '' };
    }
  });
}
