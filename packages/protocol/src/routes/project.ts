import * as z from 'zod';
import {
  PROJECT_FACT_MAX_CHARS,
  ProjectFactKindSchema,
  ProjectFactSchema,
  ProjectMemorySchema,
} from '../projectMemory';
import { id, sessionRef, type RouteMap } from './define';

/** The most candidates one decision takes (the inbox's "accept all"). */
export const PROJECT_DECIDE_MAX = 2000;
/** The largest file `project.import` reads. */
export const PROJECT_IMPORT_MAX_CHARS = 2_000_000;

export const ProjectImportResultSchema = z.object({
  /** New candidates in the inbox. */
  added: z.number().int().nonnegative(),
  /** Facts the project already had, or that look like a credential (never stored). */
  skipped: z.number().int().nonnegative(),
});
export type ProjectImportResult = z.infer<typeof ProjectImportResultSchema>;

/** Project memory: the facts of a session's project, the inbox's decisions, export and import. */
export const projectRoutes = {
  /** The project of a session's folder and its facts, re-checked first (missing, changed, expired). */
  'project.get': { input: sessionRef, output: ProjectMemorySchema },
  /** Accept or reject candidates (several at once: "accept all"); accepting a stale fact keeps it as it is now. */
  'project.decide': {
    input: z.object({ ids: z.array(id).min(1).max(PROJECT_DECIDE_MAX), decision: z.enum(['accept', 'reject']) }),
    output: z.array(ProjectFactSchema),
  },
  /** Add a fact by hand (accepted), or change one's text (a candidate edited is accepted with it). */
  'project.facts.upsert': {
    input: z.object({
      sessionId: id,
      id: id.optional(),
      kind: ProjectFactKindSchema,
      content: z.string().trim().min(1).max(PROJECT_FACT_MAX_CHARS),
      pinned: z.boolean().optional(),
    }),
    output: ProjectFactSchema,
  },
  /** Forget a fact, or bring a forgotten or superseded one back; pin or unpin it. */
  'project.facts.setStatus': {
    input: z.object({ id, status: z.enum(['accepted', 'forgotten']), pinned: z.boolean().optional() }),
    output: ProjectFactSchema,
  },
  /** The project's memory as a file: JSON (for import) or Markdown (to read; importable too). */
  'project.export': {
    input: z.object({ sessionId: id, format: z.enum(['json', 'markdown']) }),
    output: z.object({ filename: z.string(), text: z.string() }),
  },
  /** Facts from an exported file into the inbox, as candidates. */
  'project.import': {
    input: z.object({ sessionId: id, text: z.string().max(PROJECT_IMPORT_MAX_CHARS) }),
    output: ProjectImportResultSchema,
  },
} satisfies RouteMap;
