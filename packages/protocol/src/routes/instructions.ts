import * as z from 'zod';
import { CUSTOM_INSTRUCTIONS_MAX } from '../settings';
import { id, sessionRef, type RouteMap } from './define';

/** The project's instruction file in force for a session (AGENTS.md, CLAUDE.md…). */
export const ProjectInstructionsSchema = z.object({
  /** Absolute path of the file. */
  path: z.string(),
  /** Its name as the chip shows it: `AGENTS.md`, `.github/copilot-instructions.md`… */
  name: z.string(),
  /** Its text as the model gets it (capped). */
  text: z.string(),
  /** The file was longer than the cap: `text` ends with the marker saying so. */
  capped: z.boolean(),
});
export type ProjectInstructions = z.infer<typeof ProjectInstructionsSchema>;

export const SessionInstructionsSchema = z.object({
  /** The nearest instruction file from the working folder up to its repository root, if any. */
  project: ProjectInstructionsSchema.nullable(),
  /** Settings → custom instructions ('' = none). */
  custom: z.string(),
  /** The session's own system prompt (null = none). */
  session: z.string().nullable(),
});
export type SessionInstructions = z.infer<typeof SessionInstructionsSchema>;

/** The user's and the project's instructions that go into a session's system prompt. */
export const instructionsRoutes = {
  /** What is in force for the session now (the header's chip; the dialog shows the file's text). */
  'instructions.get': { input: sessionRef, output: SessionInstructionsSchema },
  /** Sets the session's own system prompt; null or blank removes it. Applies from the next model call. */
  'instructions.setSession': {
    input: z.object({ sessionId: id, systemPrompt: z.string().max(CUSTOM_INSTRUCTIONS_MAX).nullable() }),
    output: SessionInstructionsSchema,
  },
} satisfies RouteMap;
