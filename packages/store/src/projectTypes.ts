// The project memory part of @threadline/store's surface; types.ts re-exports it with the rest.
import type {
  PathFingerprint,
  ProjectEvidence,
  ProjectFact,
  ProjectFactKind,
  ProjectFactSource,
  ProjectStaleReason,
} from '@threadline/protocol';

/** Caps per project: candidates waiting (the oldest go first) and rejected rows kept. */
export const PROJECT_CAPS = Object.freeze({ candidates: 300, rejected: 2000, evidence: 5 });

/** A fact a session verified (or the user typed, or a file imported), as the runtime proposes it. */
export interface ProposedFact {
  kind: ProjectFactKind;
  content: string;
  detail: string | null;
  source: ProjectFactSource;
  evidence: ProjectEvidence;
  /** A path's state now (null for other kinds). */
  fingerprint: PathFingerprint | null;
  /** Straight into the accepted facts instead of the inbox. */
  accept: boolean;
}

/** What a check found of one accepted fact. */
export interface FactCheck {
  id: string;
  stale: ProjectStaleReason | null;
  /** The path as it is now, when the user confirmed it (re-fingerprinted). */
  fingerprint?: PathFingerprint;
}

export interface ProjectMemoryRepo {
  /** Every fact of a project, rejected ones included, oldest first. */
  facts(project: string): ProjectFact[];
  get(id: string): ProjectFact | null;
  /**
   * One transaction. A new fact becomes a candidate (or accepted with `accept`); one the project
   * holds gains the evidence (newest first, at most 5), and an accepted or waiting one is verified
   * again (its fingerprint, `verifiedAt`, no longer stale). What the user rejected, forgot or a
   * correction superseded stays so. Returns the rows that changed.
   */
  propose(project: string, facts: readonly ProposedFact[]): ProjectFact[];
  /** Marks facts superseded by another (a correction); returns them. */
  supersede(ids: readonly string[], by: string): ProjectFact[];
  /**
   * The user's decision on candidates (and stale facts: accepting keeps them as they are now, with
   * the fingerprints given). Throws not_found when an id is unknown.
   */
  decide(
    ids: readonly string[],
    decision: 'accept' | 'reject',
    fingerprints?: ReadonlyMap<string, PathFingerprint>,
  ): ProjectFact[];
  /** Forget a fact or restore one (forgotten or superseded); pin or unpin it. */
  setStatus(id: string, status: 'accepted' | 'forgotten', pinned?: boolean): ProjectFact;
  /** New text for a fact (a candidate edited is accepted); invalid_input when the project has that fact already. */
  edit(id: string, content: string, pinned?: boolean): ProjectFact;
  /** Records a check of accepted facts (only rows whose state changed are written); returns those. */
  checked(updates: readonly FactCheck[]): ProjectFact[];
}
