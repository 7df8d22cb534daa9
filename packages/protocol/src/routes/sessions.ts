import * as z from 'zod';
import { StoredMessageSchema } from '../messages';
import { LanguageSchema, WorkingFolderSchema } from '../settings';
import { id, noInput, sessionRef, type RouteMap } from './define';

export const SessionSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  messageCount: z.number().int().nonnegative(),
  /** The folder the agent works in (absolute, resolved); file tools run there without asking. */
  workingFolder: z.string(),
  /**
   * The provider profile this session talks to (null: the active profile) and its model there
   * (null: the profile's model). Set by sessions.setModel; a deleted profile clears both.
   */
  profileId: z.string().nullable().optional(),
  model: z.string().nullable().optional(),
  /** A helper's session (the delegate tool): the session whose call started it. Absent for a chat. */
  parentId: z.string().optional(),
});
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

/** Sessions and their messages. */
export const sessionRoutes = {
  'sessions.list': { input: noInput(), output: z.array(SessionSummarySchema) },
  /** `workingFolder`: absolute or `~/…`; default: Settings → agent.defaultWorkingFolder, else ~/Threadline. */
  'sessions.create': {
    input: z
      .object({
        title: z.string().trim().max(200).optional(),
        workingFolder: WorkingFolderSchema.optional(),
        /** A `workingFolder` that does not exist is refused (`not_found`) unless this says to create it. */
        createFolder: z.boolean().optional(),
      })
      .default({}),
    output: SessionSummarySchema,
  },
  'sessions.rename': {
    input: z.object({ id, title: z.string().trim().min(1).max(200) }),
    output: SessionSummarySchema,
  },
  'sessions.delete': { input: z.object({ id }), output: z.object({ deleted: z.literal(true) }) },
  /** `branches`: the branch shown (default) or every branch of the session. */
  'sessions.export': {
    input: z.object({
      id,
      format: z.enum(['markdown', 'json']),
      branches: z.enum(['active', 'all']).optional(),
      /** The notices' language (the renderer's); else the one in Settings, else English. */
      language: LanguageSchema.optional(),
    }),
    output: z.object({ filename: z.string(), mime: z.string(), content: z.string() }),
  },
  /** Moves a session to another working folder (checked like sessions.create's). */
  'sessions.update': {
    input: z.object({ id, workingFolder: WorkingFolderSchema, createFolder: z.boolean().optional() }),
    output: SessionSummarySchema,
  },
  /** The model of this session's next requests (null, null: the active profile and its model). */
  'sessions.setModel': {
    input: z.object({ id, profileId: id.nullable(), model: z.string().trim().min(1).max(200).nullable() }),
    output: SessionSummarySchema,
  },
  'messages.list': { input: sessionRef, output: z.array(StoredMessageSchema) },
  /** The full text of a truncated tool output (messages.list leaves full outputs out). */
  'messages.fullOutput': { input: z.object({ id }), output: z.object({ text: z.string().nullable() }) },
} satisfies RouteMap;
