import * as z from 'zod';

/**
 * Project memory: what earlier sessions in the same working folder verified (commands that
 * succeeded, paths that exist) or the user said (standing instructions, corrections, decisions
 * they confirmed), one memory per project (the folder's realpath, or its repository's root).
 */
export const ProjectFactKindSchema = z.enum(['command', 'path', 'instruction', 'decision']);
export type ProjectFactKind = z.infer<typeof ProjectFactKindSchema>;

/**
 * `candidate`: waiting in the inbox; `accepted`: the project's memory; `rejected`: the user said no
 * (kept so the same candidate does not come back); `forgotten`: taken out by the user;
 * `superseded`: a later correction of the user contradicts it.
 */
export const ProjectFactStatusSchema = z.enum(['candidate', 'accepted', 'rejected', 'forgotten', 'superseded']);
export type ProjectFactStatus = z.infer<typeof ProjectFactStatusSchema>;

/**
 * Why an accepted fact is not injected now (the last check): the path is gone, the file changed
 * since it was verified, the command's fact is older than the time the user set, the path now
 * leads out of the project (a link).
 */
export const ProjectStaleReasonSchema = z.enum(['missing', 'changed', 'expired', 'outside']);
export type ProjectStaleReason = z.infer<typeof ProjectStaleReasonSchema>;

/** Where a fact came from: a session's work, the user typing it, an imported file. */
export const ProjectFactSourceSchema = z.enum(['session', 'user', 'import']);
export type ProjectFactSource = z.infer<typeof ProjectFactSourceSchema>;

/** What a command does, as its words say (`pnpm test` tests, `cargo build` builds). */
export const COMMAND_PURPOSES = ['test', 'build', 'run', 'lint', 'typecheck', 'format', 'install'] as const;
export const CommandPurposeSchema = z.enum(COMMAND_PURPOSES);
export type CommandPurpose = z.infer<typeof CommandPurposeSchema>;

/** The longest fact text kept (a command's first line, a path, one instruction sentence). */
export const PROJECT_FACT_MAX_CHARS = 400;

/** One piece of evidence: which session and message, what verified it, when. */
export const ProjectEvidenceSchema = z.object({
  /** null: typed by the user in the Memory panel, or imported. */
  sessionId: z.string().nullable(),
  /** The message holding the call that verified it (or the user's message). */
  messageId: z.string().nullable(),
  toolCallId: z.string().nullable(),
  /** What verified it, as it ran: `pnpm test` → exit 0, `read_file src/app.ts`, or the user's words. */
  verifiedBy: z.string().max(600),
  at: z.number().int(),
});
export type ProjectEvidence = z.infer<typeof ProjectEvidenceSchema>;

/** A path as it was when verified: a folder, or a file's size and modification time. */
export const PathFingerprintSchema = z.object({
  type: z.enum(['file', 'dir']),
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
});
export type PathFingerprint = z.infer<typeof PathFingerprintSchema>;

export const ProjectFactSchema = z.object({
  id: z.string(),
  /** The project: its root's realpath. */
  project: z.string(),
  kind: ProjectFactKindSchema,
  /** A command as run, a path relative to the project's root, or the user's sentence. */
  content: z.string(),
  /** A command's purpose (CommandPurpose); `correction` for an instruction that corrected another; else null. */
  detail: z.string().nullable(),
  status: ProjectFactStatusSchema,
  pinned: z.boolean(),
  /** Set by the last check of an accepted fact: it is not injected, and offered for review. */
  stale: ProjectStaleReasonSchema.nullable(),
  source: ProjectFactSourceSchema,
  /** Newest first, at most 5. */
  evidence: z.array(ProjectEvidenceSchema),
  /** A path fact's path when last verified (null for other kinds). */
  fingerprint: PathFingerprintSchema.nullable(),
  /** The correction that superseded it. */
  supersededBy: z.string().nullable(),
  /** When it was last verified (a command's age counts from here). */
  verifiedAt: z.number().int(),
  checkedAt: z.number().int().nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type ProjectFact = z.infer<typeof ProjectFactSchema>;

/** The project memory of a session's folder. */
export const ProjectMemorySchema = z.object({
  /** The project's root (realpath); null when the session's folder cannot be used (or does not exist yet). */
  project: z.string().nullable(),
  /** Every fact of the project but the rejected ones, oldest first. */
  facts: z.array(ProjectFactSchema),
  /** Whether project memory is on (Settings). */
  enabled: z.boolean(),
});
export type ProjectMemory = z.infer<typeof ProjectMemorySchema>;

/** An inbox entry: a new candidate, or an accepted fact a check found stale. */
export function inInbox(f: Pick<ProjectFact, 'status' | 'stale'>): boolean {
  return f.status === 'candidate' || (f.status === 'accepted' && f.stale !== null);
}

/** The file a project's memory is exported as, and imported from (JSON; a Markdown export is for reading). */
export const PROJECT_EXPORT_FORMAT = 'threadline.project-memory.v1';
export const ProjectExportFactSchema = z.object({
  kind: ProjectFactKindSchema,
  content: z.string().trim().min(1).max(PROJECT_FACT_MAX_CHARS),
  detail: z.string().max(40).nullable().optional(),
  pinned: z.boolean().optional(),
  evidence: z.array(ProjectEvidenceSchema).max(5).optional(),
});
export type ProjectExportFact = z.infer<typeof ProjectExportFactSchema>;
export const ProjectExportSchema = z.object({
  format: z.literal(PROJECT_EXPORT_FORMAT),
  project: z.string(),
  exportedAt: z.number().int(),
  facts: z.array(ProjectExportFactSchema).max(2000),
});
export type ProjectExport = z.infer<typeof ProjectExportSchema>;

/**
 * What makes two facts of a project the same (one row each): a path without `./` or a trailing
 * `/`, a command with its spaces collapsed (both case-sensitive), the user's words case-folded.
 */
export function projectFactKey(kind: ProjectFactKind, content: string): string {
  const c = content.trim().replace(/\s+/g, ' ');
  switch (kind) {
    case 'path':
      return `path:${c
        .replace(/\\/g, '/')
        .replace(/^(?:\.\/)+/, '')
        .replace(/\/+$/, '')}`;
    case 'command':
      return `command:${c}`;
    default:
      return `${kind}:${c.toLowerCase().replace(/[.!。！]+$/, '')}`;
  }
}
