/**
 * Project memory in the runtime: one per project (a working folder's realpath, or its
 * repository's root), shared by every session there. Sessions propose what they verified (the
 * refresh's promotions), the user decides in the inbox, a check before each turn marks what is no
 * longer true, and the accepted, current facts become one block of the system prompt.
 * The facts of a project are read from the store once and kept here; every write goes through
 * this class, which moves the project's version and tells the renderers (`project.updated`).
 */
import path from 'node:path';
import { buildProjectBlock, countTextTokens, negatedTerms, type ProjectPromotion } from '@threadline/context';
import {
  AppError,
  inInbox,
  projectFactKey,
  type AppEvent,
  type PathFingerprint,
  type ProjectFact,
  type ProjectFactKind,
  type Settings,
} from '@threadline/protocol';
import type { FactCheck, ProposedFact, Store } from '@threadline/store';
import type { Workspace } from '../workspace/types';
import { expandHome } from '../workspace/resolve';
import { zoneOfResolved, type Reach } from '../workspace/reach';
import { pathState, projectRootOf, sameAsVerified } from './disk';
import { credentialLike } from './secrets';

/** Facts checked at once (each check is a realpath and an lstat). */
const CHECK_CONCURRENCY = 16;
const DAY_MS = 24 * 60 * 60_000;

export interface ProjectMemoryDeps {
  store: Store;
  emit: (e: AppEvent) => void;
  now: () => number;
  workspace: Workspace;
}

interface ProjectState {
  facts: ProjectFact[];
  /** Moves with every change of the facts: the block is built again only then. */
  version: number;
  block: { key: string; text: string | null } | null;
  checking: Promise<void> | null;
}

/** Where a session works: its folder as the OS resolves it, and the project that folder belongs to. */
export interface ProjectPlace {
  project: string;
  folder: string;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether a fact uses a term a correction rules out (as a whole word), without ruling it out itself. */
export function contradicts(fact: Pick<ProjectFact, 'kind' | 'content'>, term: string): boolean {
  if (fact.kind === 'path') return false;
  if (!new RegExp(`(?<![\\w-])${escapeRegExp(term)}(?![\\w-])`, 'i').test(fact.content)) return false;
  return !negatedTerms(fact.content).includes(term);
}

export class ProjectMemory {
  private readonly projects = new Map<string, ProjectState>();
  /** The last place found for a folder (no I/O to read it): the meter outside a turn uses it. */
  private readonly places = new Map<string, ProjectPlace | null>();

  constructor(private readonly deps: ProjectMemoryDeps) {}

  private reach(folder: string): Reach {
    const ws = this.deps.workspace;
    return { folder, home: ws.homeDir, dataDir: ws.dataDir, dbFile: ws.dbFile, platform: ws.platform };
  }

  /** The project of a session's folder, found again (asynchronously); null: no usable folder yet. */
  async placeOf(folder: string): Promise<ProjectPlace | null> {
    const project = await projectRootOf(folder, this.deps.workspace.homeDir);
    const real = project === null ? null : await pathState(project, folder, this.deps.workspace.platform);
    const place = project !== null && real?.state === 'there' ? { project, folder: real.real } : null;
    this.places.set(folder, place);
    return place;
  }

  /** What `placeOf` last found for a folder, without asking the disk (undefined: never asked). */
  knownPlace(folder: string): ProjectPlace | null | undefined {
    return this.places.get(folder);
  }

  private state(project: string): ProjectState {
    let s = this.projects.get(project);
    if (!s) {
      s = { facts: this.deps.store.projectMemory.facts(project), version: 0, block: null, checking: null };
      this.projects.set(project, s);
    }
    return s;
  }

  /** Every fact of a project but the rejected ones, oldest first. */
  facts(project: string): ProjectFact[] {
    return this.state(project).facts.filter((f) => f.status !== 'rejected');
  }

  /** Rows a write changed: into the kept facts (all of them read again with `reload`), the version moved, the renderers told. */
  private changed(project: string, rows: readonly ProjectFact[], reload = false): void {
    if (rows.length === 0 && !reload) return;
    const s = this.state(project);
    if (reload) s.facts = this.deps.store.projectMemory.facts(project);
    else {
      const byId = new Map(rows.map((r) => [r.id, r]));
      const known = new Set(s.facts.map((f) => f.id));
      s.facts = s.facts.map((f) => byId.get(f.id) ?? f).concat(rows.filter((r) => !known.has(r.id)));
    }
    s.version++;
    this.deps.emit({ type: 'project.updated', project, inbox: s.facts.filter(inInbox).length });
  }

  // ─── checks ──────────────────────────────────────────────────────────────────────────────

  /**
   * Re-checks the accepted facts of a project: a path still there and as it was verified, a
   * command younger than the time the user set. What changed is stored (the stale mark); a fact
   * the disk did not answer for in time keeps its last state. Concurrent calls share one check.
   */
  check(project: string, settings: Settings): Promise<void> {
    const s = this.state(project);
    s.checking ??= this.runCheck(project, settings).finally(() => {
      s.checking = null;
    });
    return s.checking;
  }

  private async runCheck(project: string, settings: Settings): Promise<void> {
    const s = this.state(project);
    const ttl = settings.projectMemory.commandTtlDays * DAY_MS;
    const now = this.deps.now();
    const accepted = s.facts.filter((f) => f.status === 'accepted');
    const updates: FactCheck[] = [];
    for (let i = 0; i < accepted.length; i += CHECK_CONCURRENCY) {
      const batch = accepted.slice(i, i + CHECK_CONCURRENCY);
      const found = await Promise.all(batch.map((f) => this.checkOne(project, f, ttl, now)));
      found.forEach((stale, j) => {
        if (stale !== undefined && stale !== batch[j]!.stale) updates.push({ id: batch[j]!.id, stale });
      });
    }
    if (updates.length > 0) this.changed(project, this.deps.store.projectMemory.checked(updates));
  }

  /** A fact's stale reason now (null: current); undefined when the disk gave no answer in time. */
  private async checkOne(
    project: string,
    f: ProjectFact,
    ttl: number,
    now: number,
  ): Promise<ProjectFact['stale'] | undefined> {
    if (f.kind === 'command') return now - f.verifiedAt > ttl ? 'expired' : null;
    if (f.kind !== 'path') return null;
    const st = await pathState(project, f.content, this.deps.workspace.platform);
    if (st.state === 'unknown') return undefined;
    if (st.state !== 'there') return st.state;
    return sameAsVerified(st.fingerprint, f.fingerprint) ? null : 'changed';
  }

  // ─── the block ───────────────────────────────────────────────────────────────────────────

  /**
   * The block of the system prompt for a project (null: nothing to inject), the same text while
   * its facts are the same: built again only when they change (a decision, an edit, a check that
   * found something stale, a verified candidate accepted).
   */
  block(project: string, model: string, settings: Settings): string | null {
    if (!settings.projectMemory.enabled) return null;
    const s = this.state(project);
    const key = `${s.version}\u0000${model}\u0000${settings.projectMemory.maxTokens}`;
    if (s.block?.key !== key) {
      const safe = s.facts.filter((f) => !credentialLike(f.content));
      const built = buildProjectBlock(safe, {
        root: project,
        maxTokens: settings.projectMemory.maxTokens,
        count: (t) => countTextTokens(t, model),
      });
      s.block = { key, text: built.text };
    }
    return s.block.text;
  }

  // ─── from a session ──────────────────────────────────────────────────────────────────────

  /**
   * What a session verified, into its project's memory: paths that exist (inside the project,
   * not a credential place, as they are now), commands (from the project's root), the user's
   * instructions and decisions; none whose text looks like a credential. A correction supersedes
   * the facts it contradicts and, when one of them was accepted, is accepted itself (the user's
   * word wins). Facts verified by a command or a read go in directly when Settings say so.
   */
  async propose(
    place: ProjectPlace,
    sessionId: string,
    promotions: readonly ProjectPromotion[],
    settings: Settings,
  ): Promise<void> {
    if (!settings.projectMemory.enabled || promotions.length === 0) return;
    const { project, folder } = place;
    const at = this.deps.now();
    const proposals: ProposedFact[] = [];
    const corrections: { key: string; negates: string[] }[] = [];
    for (const p of promotions) {
      if (credentialLike(p.content) || credentialLike(p.evidence.verifiedBy)) continue;
      const evidence = { sessionId, ...p.evidence, at };
      const base = { detail: p.detail, source: 'session' as const, evidence, fingerprint: null, accept: false };
      if (p.kind === 'path') {
        const fact = await this.pathFact(place, p.content);
        if (fact) proposals.push({ ...base, kind: 'path', ...fact, accept: settings.projectMemory.autoAccept });
      } else if (p.kind === 'command') {
        const rel = path.relative(project, folder).split(path.sep).join('/');
        const cd = rel === '' ? '' : `cd ${/\s/.test(rel) ? `'${rel}'` : rel} && `;
        proposals.push({
          ...base,
          kind: 'command',
          content: `${cd}${p.content}`,
          accept: settings.projectMemory.autoAccept,
        });
      } else {
        proposals.push({ ...base, kind: p.kind, content: p.content });
        if (p.negates && p.negates.length > 0) corrections.push({ key: p.content, negates: p.negates });
      }
    }
    if (proposals.length === 0) return;
    // Corrections: what they rule out, among the facts the user kept or has yet to decide on.
    const s = this.state(project);
    const superseded = new Map<string, string[]>();
    for (const c of corrections) {
      const hit = s.facts.filter(
        (f) => (f.status === 'accepted' || f.status === 'candidate') && c.negates.some((t) => contradicts(f, t)),
      );
      if (hit.length === 0) continue;
      superseded.set(
        c.key,
        hit.map((f) => f.id),
      );
      if (hit.some((f) => f.status === 'accepted')) {
        const mine = proposals.find((q) => q.content === c.key);
        if (mine) mine.accept = true;
      }
    }
    const rows = this.deps.store.projectMemory.propose(project, proposals);
    const out = [...rows];
    for (const [content, ids] of superseded) {
      const by = rows.find((r) => r.kind === 'instruction' && r.content === content);
      const old = ids.filter((id) => id !== by?.id);
      if (by && old.length > 0) out.push(...this.deps.store.projectMemory.supersede(old, by.id));
    }
    // Read again whole: the store may have dropped the oldest candidates (their cap).
    if (out.length > 0) this.changed(project, out, true);
  }

  /** A path a session named, as a fact of the project: relative to its root, as it is now; null when it is none. */
  private async pathFact(
    place: ProjectPlace,
    named: string,
  ): Promise<{ content: string; fingerprint: PathFingerprint } | null> {
    const { project, folder } = place;
    const ws = this.deps.workspace;
    const abs = path.resolve(folder, expandHome(named, ws.homeDir));
    const st = await pathState(project, abs, ws.platform);
    if (st.state !== 'there') return null;
    // The tools' rules: never the app's data, never a credential place (they always ask).
    if (zoneOfResolved(st.real, this.reach(project)) !== 'inside') return null;
    const rel = path.relative(project, st.real).split(path.sep).join('/');
    if (rel === '' || credentialLike(rel)) return null;
    return { content: rel, fingerprint: st.fingerprint };
  }

  // ─── the user's decisions ──────────────────────────────────────────────────────────────────

  private owner(id: string): ProjectFact {
    const f = this.deps.store.projectMemory.get(id);
    if (!f) throw new AppError('not_found', `No project fact with id ${id}.`);
    return f;
  }

  /** Accept or reject (the inbox); a stale path accepted is taken as it is now. */
  async decide(ids: readonly string[], decision: 'accept' | 'reject'): Promise<ProjectFact[]> {
    const facts = ids.map((id) => this.owner(id));
    const prints = new Map<string, PathFingerprint>();
    if (decision === 'accept')
      for (const f of facts) {
        // A candidate keeps the state it was verified in (a check marks it if the file changed since).
        if (f.kind !== 'path' || f.stale === null) continue;
        const st = await pathState(f.project, f.content, this.deps.workspace.platform);
        if (st.state === 'there') prints.set(f.id, st.fingerprint);
        else if (st.state !== 'unknown')
          throw new AppError('invalid_input', `${f.content} is no longer in the project; forget it instead.`, 'gone');
      }
    const rows = this.deps.store.projectMemory.decide(ids, decision, prints);
    for (const project of new Set(rows.map((r) => r.project)))
      this.changed(
        project,
        rows.filter((r) => r.project === project),
      );
    return rows;
  }

  /** A fact typed by the user (accepted), or new text for one. Refused when it looks like a credential. */
  async upsert(
    project: string,
    input: { id?: string; kind: ProjectFactKind; content: string; pinned?: boolean },
  ): Promise<ProjectFact> {
    if (credentialLike(input.content))
      throw new AppError(
        'invalid_input',
        'This looks like a password, key or token; project memory never keeps one.',
        'credential',
      );
    if (input.id !== undefined) {
      const f = this.owner(input.id);
      if (f.project !== project) throw new AppError('not_found', `No project fact with id ${input.id}.`);
      const key = projectFactKey(f.kind, input.content);
      if (this.state(project).facts.some((o) => o.id !== f.id && projectFactKey(o.kind, o.content) === key))
        throw new AppError('invalid_input', 'The project memory already has this fact.', 'duplicate');
      const row = this.deps.store.projectMemory.edit(input.id, input.content, input.pinned);
      this.changed(project, [row]);
      return row;
    }
    let content = input.content;
    let fingerprint: PathFingerprint | null = null;
    if (input.kind === 'path') {
      const fact = await this.pathFact({ project, folder: project }, input.content);
      if (!fact)
        throw new AppError(
          'invalid_input',
          `${input.content} is not a file or folder of this project.`,
          'not_in_project',
        );
      ({ content, fingerprint } = fact);
    }
    const [row] = this.deps.store.projectMemory.propose(project, [
      {
        kind: input.kind,
        content,
        detail: null,
        source: 'user',
        evidence: {
          sessionId: null,
          messageId: null,
          toolCallId: null,
          verifiedBy: 'added by the user',
          at: this.deps.now(),
        },
        fingerprint,
        accept: true,
      },
    ]);
    if (!row)
      throw new AppError(
        'invalid_input',
        'The project memory already has this fact (or you rejected or forgot it).',
        'duplicate',
      );
    const pinned = input.pinned ? this.deps.store.projectMemory.setStatus(row.id, 'accepted', true) : row;
    this.changed(project, [pinned]);
    return pinned;
  }

  setStatus(id: string, status: 'accepted' | 'forgotten', pinned?: boolean): ProjectFact {
    const row = this.deps.store.projectMemory.setStatus(this.owner(id).id, status, pinned);
    this.changed(row.project, [row]);
    return row;
  }

  /** Facts of an imported file, into the inbox; what looks like a credential is skipped. */
  importFacts(
    project: string,
    facts: readonly Omit<ProposedFact, 'source' | 'accept'>[],
  ): { added: number; skipped: number } {
    const safe = facts.filter((f) => !credentialLike(f.content));
    const before = new Set(this.state(project).facts.map((f) => f.id));
    const rows = this.deps.store.projectMemory.propose(
      project,
      safe.map((f) => ({ ...f, source: 'import', accept: false })),
    );
    const added = rows.filter((r) => !before.has(r.id)).length;
    this.changed(project, rows, rows.length > 0);
    return { added, skipped: facts.length - added };
  }
}
