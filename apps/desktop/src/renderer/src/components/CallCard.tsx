import type { StoredMessage, ToolCall } from '@threadline/protocol';
import { DelegateCard } from './DelegateCard';
import { ToolCallCard } from './ToolCallCard';

/** A tool call in the transcript: a delegate call is its helpers' card, any other its tool card. */
export function CallCard(props: { sessionId: string; call: ToolCall; result: StoredMessage | null }) {
  return props.call.function.name === 'delegate' ? <DelegateCard {...props} /> : <ToolCallCard {...props} />;
}
