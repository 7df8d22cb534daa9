import type OpenAI from 'openai';
import type { ChatMessage } from '@threadline/protocol';

export type SdkMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Our chat messages as the SDK types them (tool messages take no `name`; null content → ''). */
export function toSdkMessages(messages: ChatMessage[]): SdkMessage[] {
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
        return m.name
          ? { role: 'user', content: m.content ?? '', name: m.name }
          : { role: 'user', content: m.content ?? '' };
    }
  });
}
