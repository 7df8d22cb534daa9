import {
  TOKENS_PER_MESSAGE,
  buildMemoryBlock,
  buildView,
  countMessageTokens,
  toCompactionRecord,
  type CompactResult,
  type View,
} from '@threadline/context';
import { strategyKeepsMemory } from '@threadline/protocol';
import type {
  CompactionRecord,
  MemoryFact,
  ProjectInstructions,
  SessionInstructions,
  Settings,
  StoredMessage,
} from '@threadline/protocol';
import { countFor, frozenMemoryBlock, viewAtVersion, type SessionSnapshot } from '../session/history';
import { countNewMessages } from '../session/counting';
import { commandsSentence } from '../sandbox/service';
import { instructionsSection } from '../session/instructions';
import { projectBlockOf } from './project';
import { systemPrompt } from './systemPrompt';
import { helperRolesSection } from './helperScope';
import type { SessionWork } from './sessionWork';
import { reachBase } from '../workspace/sessionFolder';

export interface SessionView {
  view: View;
  /** The whole active branch (the snapshot's; never changed by the caller). */
  history: readonly StoredMessage[];
  /** What the agent sees of it, before normalization. */
  inView: readonly StoredMessage[];
  /** Agent-visible messages of the branch, hidden ones included. */
  agentMessages: number;
  compactions: CompactionRecord[];
  facts: MemoryFact[];
  memoryBlock: string | null;
  systemPrompt: string;
  /** Estimated tokens of the instructions part of the system prompt (0: none). */
  instructionsTokens: number;
  /** Estimated tokens of the project memory block in the system prompt (0: none). */
  projectTokens: number;
}

/** Strategies that inject the CFPM memory block into every request. */
export function usesMemoryBlock(settings: Settings): boolean {
  return strategyKeepsMemory(settings.compaction.strategy);
}

/**
 * The memory block of the requests (CFPM's `[CFPM_RUNTIME_MEMORY_V1]`, also the priority chain's),
 * built from the facts when the set of active compactions changes or the user edits memory, and
 * the same text in between. It sits before the conversation, so a block that followed every
 * refresh would break the provider's cached prefix on most calls; the facts a refresh learns
 * between two compactions come from messages the model still sees, and what the block is for —
 * what a compaction hid — changes only at a compaction.
 */
export function memoryBlockFor(snap: SessionSnapshot): string | null {
  const key = `${snap.compactions.map((c) => c.id).join(',')}\u0000${snap.memoryEpoch}`;
  return frozenMemoryBlock(snap, key, () => buildMemoryBlock(snap.facts));
}

/**
 * The folder the system prompt names: the session's working folder (where its tools run), not
 * this process's. A folder that no longer passes the checks is named as stored; the next tool
 * call says why it cannot be used.
 */
function promptFolder(turn: SessionWork): string {
  const place = turn.folder();
  if ('folder' in place) return place.folder;
  return turn.session.workingFolder !== '' ? turn.session.workingFolder : turn.deps.workspace.cwd;
}

/** Everything in force for the session; never throws (an unusable folder has no project file). */
export function instructionsOf(turn: SessionWork): SessionInstructions {
  const place = turn.folder();
  let project: ProjectInstructions | null = null;
  if ('folder' in place) {
    try {
      project = turn.deps.instructions.find(place.folder, reachBase(turn.deps.workspace));
    } catch {
      project = null;
    }
  }
  return { project, custom: turn.settings.agent.customInstructions, session: turn.sessionPrompt() };
}

/**
 * build view: the session's snapshot (history in view + active compactions + memory block) →
 * normalize → count. Built once per change of the snapshot: a second call with nothing new (the
 * auto trigger, the usage event, context.usage) gets the same view.
 */
export function buildSessionView(turn: SessionWork): SessionView {
  const { deps, settings, profile } = turn;
  const snap = turn.snapshot();
  countFor(snap, profile.model);
  // Counts the messages the store has no count for yet, once, and stores them: a
  // reopened session recounts nothing; a large message shows an estimate until counted (session/counting.ts).
  countNewMessages(deps.store, snap, profile.model);
  // A helper reads its parent's facts (read-only, as they were when it started), never its own.
  const memoryBlock = turn.helper ? turn.helper.memoryBlock : usesMemoryBlock(settings) ? memoryBlockFor(snap) : null;
  const commands = commandsSentence(settings.approvalPolicy, deps.sandbox?.current() ?? null, () =>
    turn.sandboxNetwork(),
  );
  const base = systemPrompt({
    folder: promptFolder(turn),
    platform: deps.workspace.platform,
    startedAt: snap.history[0]?.createdAt ?? deps.now(),
    commands,
  });
  // A helper is told what it is; a chat turn, which helper roles the user defined.
  const extra = turn.helper ? turn.helper.prompt : helperRolesSection(settings);
  const prompt = extra === null ? base : `${base}\n${extra}`;
  // The user's and the project's instructions: read once per turn, and again once they may have
  // changed (the cached prefix holds between their edits).
  const instructions = instructionsPart(turn);
  // The project's memory last: accepted facts from earlier sessions in this folder, fixed for the
  // turn (turn/project.ts), never compacted (it is not history).
  const project = projectBlockOf(turn);
  const system = [prompt, instructions.text, project].filter((p): p is string => p !== null).join('\n\n');
  const key = `${profile.model}\u0000${system}\u0000${memoryBlock ?? '\u0001'}`;
  const cached = viewAtVersion(snap, key, () => ({
    view: buildView({
      history: snap.inView,
      compactions: snap.compactions,
      memoryBlock,
      systemPrompt: system,
      model: profile.model,
    }),
    systemPrompt: system,
    memoryBlock,
  }));
  return {
    view: cached.view,
    history: snap.history,
    inView: snap.inView,
    agentMessages: snap.agentMessages,
    compactions: snap.compactions,
    facts: snap.facts,
    memoryBlock,
    systemPrompt: system,
    instructionsTokens: instructions.tokens,
    projectTokens: projectTokens(turn, project),
  };
}

/** What a turn last read of its instructions, and when (see instructionsPart). */
interface ReadInstructions {
  key: string;
  text: string | null;
  tokens: number;
}
const readInstructions = new WeakMap<SessionWork, ReadInstructions>();
const readProject = new WeakMap<SessionWork, { text: string | null; model: string; tokens: number }>();

/**
 * The instructions part of the system prompt and its tokens, looked for once per turn (the
 * project's file is found by walking the folder up to its repository root): again when the
 * session's own instructions changed (a route bumped its small rows), when a tool that may write
 * ran (it may have written an instruction file), or for another model.
 */
function instructionsPart(turn: SessionWork): { text: string | null; tokens: number } {
  const key = `${turn.state.rowsVersion}\u0000${turn.folderWrites}\u0000${turn.profile.model}`;
  let read = readInstructions.get(turn);
  if (read?.key !== key) {
    const text = instructionsSection(instructionsOf(turn));
    read = { key, text, tokens: partTokens(text, turn.profile.model) };
    readInstructions.set(turn, read);
  }
  return read;
}

/** The project memory block's tokens: the block is fixed for the turn, counted once per model. */
function projectTokens(turn: SessionWork, text: string | null): number {
  const model = turn.profile.model;
  let read = readProject.get(turn);
  if (read?.text !== text || read.model !== model) {
    read = { text, model, tokens: partTokens(text, model) };
    readProject.set(turn, read);
  }
  return read.tokens;
}

/**
 * The view's tokens (the engine's estimate) once a computed compaction is applied: what the next
 * request will hold, counted as the meter counts it (the inserted messages at their anchors, the
 * hidden ones out, the memory block rebuilt from the facts as it is after every compaction). A
 * divider's "after" and a preview's are this figure, so they say what the meter will say.
 */
export function viewTokensAfter(turn: SessionWork, sv: SessionView, plan: CompactResult): number {
  const snap = turn.snapshot();
  const record = toCompactionRecord(plan, { sessionId: turn.sessionId, createdAt: 0 });
  const view = buildView({
    history: [...sv.inView, ...plan.inserted],
    compactions: [...sv.compactions, record],
    memoryBlock: sv.memoryBlock === null ? null : buildMemoryBlock(snap.facts),
    systemPrompt: sv.systemPrompt,
    model: turn.profile.model,
  });
  return view.tokens;
}

/** A part of the system prompt's tokens (0: none). */
function partTokens(text: string | null, model: string): number {
  return text === null ? 0 : countMessageTokens({ role: 'system', content: text }, model) - TOKENS_PER_MESSAGE;
}
