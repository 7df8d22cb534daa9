import * as z from 'zod';
import { StoredMessageSchema } from '../messages';
import { TurnAcceptedSchema } from './chat';
import { id, sessionRef, type RouteMap } from './define';

/** Versions of a message and the branches they make (history itself stays append-only). */
export const branchRoutes = {
  /** Sends `text` as a new version of an earlier user message: a new branch from that point. */
  'chat.edit': {
    input: z.object({ sessionId: id, messageId: id, text: z.string().min(1).max(1_000_000) }),
    output: TurnAcceptedSchema,
  },
  /** A new version of the last reply: the last request of the branch is answered again. */
  'chat.regenerate': { input: sessionRef, output: TurnAcceptedSchema },
  /** After an error: the same request again (the same message, never a copy), on a new reply version. */
  'chat.retry': { input: sessionRef, output: TurnAcceptedSchema },
  /** Shows the branch through `messageId` (one of a message's versions), down to its newest message. */
  'branches.switch': {
    input: z.object({ sessionId: id, messageId: id }),
    /** The active branch after the switch, as messages.list returns it. */
    output: z.array(StoredMessageSchema),
  },
} satisfies RouteMap;
