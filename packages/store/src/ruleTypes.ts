// The permission rules and the per-session sandbox switch of @threadline/store's surface;
// types.ts re-exports it with the rest.
import type { Rule, RuleDraft, RuleOrigin } from '@threadline/protocol';

/** A rule as it is added or changed (what rules.save takes; the store checks it with the protocol's schema). */
export type NewRule = Omit<RuleDraft, 'id'>;

/** Permission rules (migration 21): stored by the app, never by the agent. */
export interface RulesRepo {
  /** Every rule, oldest first. */
  list(): Rule[];
  /** The session's own rules and every folder and everywhere rule (the caller keeps the folders that hold). */
  forSession(sessionId: string): Rule[];
  get(id: string): Rule | null;
  add(rule: NewRule, origin: RuleOrigin): Rule;
  /** Changes what a rule decides, matches and where it holds; keeps its origin and hits. Throws not_found. */
  update(id: string, rule: NewRule): Rule;
  remove(id: string): boolean;
  /** Counts a decision of each rule (hits, last hit now). */
  hit(ids: readonly string[]): void;
}

/** A session's settings of the OS sandbox its commands run in. */
export interface SessionSandboxRepo {
  /** "Allow network for commands" (default false). */
  network(sessionId: string): boolean;
  setNetwork(sessionId: string, allowed: boolean): void;
}
