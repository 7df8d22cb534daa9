// zod's smaller API (zod/mini: functions instead of methods, same parsing): a program that only
// reads messages (the context engine, its worker, the CLI) loads it without zod's full API.
import * as z from 'zod/mini';

/** OpenAI chat roles. */
export const RoleSchema = z.enum(['system', 'user', 'assistant', 'tool']);
export type Role = z.infer<typeof RoleSchema>;

export const ToolCallSchema = z.object({
  id: z.string().check(z.minLength(1)),
  type: z._default(z.literal('function'), 'function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/**
 * An image part of a message's content: the attachment it shows (stored once, in the attachments
 * table) and what the provider and the meter need to know of it. Sent to the provider as an
 * `image_url` content part with a data URL (provider/messages.ts); in the view of an old message
 * it becomes the text `[image: name]` (packages/context `placeholderOldImages`).
 */
export const ImagePartSchema = z.object({
  type: z.literal('image'),
  attachmentId: z.string().check(z.minLength(1), z.maxLength(200)),
  name: z.string().check(z.maxLength(300)),
  mime: z.string().check(z.maxLength(100)),
  width: z.int().check(z.positive()),
  height: z.int().check(z.positive()),
});
export type ImagePart = z.infer<typeof ImagePartSchema>;

/**
 * A message as an OpenAI-compatible chat API takes it. `content` is its text; `images`, when
 * present, are image parts that follow the text (the provider client sends both as content parts).
 */
export const ChatMessageSchema = z.object({
  role: RoleSchema,
  content: z._default(z.nullable(z.string()), null),
  images: z.optional(z.array(ImagePartSchema)),
  tool_calls: z.optional(z.array(ToolCallSchema)),
  tool_call_id: z.optional(z.string()),
  name: z.optional(z.string()),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/**
 * What a stored message is for. Only `normal` messages come from the conversation itself;
 * the others are inserted by the engine or the runtime.
 */
export const MessageKindSchema = z.enum([
  'normal',
  'summary',
  'continuation',
  'memory_snapshot',
  'runtime_notice',
  'gate_notice',
  'turn_aborted',
  'error_notice',
  /** The user undid or redid a turn's file changes: shown, and read by the model (meta: CheckpointNoticeMeta). */
  'checkpoint_notice',
]);
export type MessageKind = z.infer<typeof MessageKindSchema>;

/** Who sees a message: the user in the transcript, the agent in its view. */
export const VisibilitySchema = z.object({ user: z.boolean(), agent: z.boolean() });
export type Visibility = z.infer<typeof VisibilitySchema>;

export const VISIBLE_TO_ALL: Visibility = Object.freeze({ user: true, agent: true });
/** Summaries, continuation instructions, memory blocks (AGIME `agent_only`). */
export const AGENT_ONLY: Visibility = Object.freeze({ user: false, agent: true });
/** Runtime and gate notices (persisted, shown, never sent to the model). */
export const USER_ONLY: Visibility = Object.freeze({ user: true, agent: false });

/** A message of a session's append-only history. */
export const StoredMessageSchema = z.extend(ChatMessageSchema, {
  id: z.string().check(z.minLength(1)),
  sessionId: z.string().check(z.minLength(1)),
  seq: z.int().check(z.nonnegative()),
  createdAt: z.int(),
  kind: MessageKindSchema,
  visibility: VisibilitySchema,
  /** Cached token count of this message for the session's encoding (null = not counted yet). */
  tokens: z._default(z.nullable(z.int().check(z.nonnegative())), null),
  /** For tool results cut at write time: the full output (capped, itself marked) lives here. */
  fullOutput: z.optional(z.nullable(z.string())),
  /** Extra data for the UI (tool duration, status, the compaction id that inserted it…). */
  meta: z.optional(z.record(z.string(), z.unknown())),
  /** The message before this one on its branch (null: the first of the session). */
  parentId: z.optional(z.nullable(z.string())),
  /**
   * Set by messages.list when this message has other versions (an edit of a user message, a
   * regenerated or retried reply): its place among them and their ids, oldest first.
   */
  versions: z.optional(z.object({ index: z.int(), count: z.int(), ids: z.array(z.string()) })),
});
export type StoredMessage = z.infer<typeof StoredMessageSchema>;

export function toChatMessage(m: ChatMessage): ChatMessage {
  const out: ChatMessage = { role: m.role, content: m.content };
  if (m.tool_calls && m.tool_calls.length > 0) out.tool_calls = m.tool_calls;
  if (m.tool_call_id !== undefined) out.tool_call_id = m.tool_call_id;
  if (m.name !== undefined) out.name = m.name;
  if (m.images && m.images.length > 0) out.images = m.images;
  return out;
}
