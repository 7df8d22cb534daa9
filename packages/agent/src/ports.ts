// What the turn loop needs from the context engine and the provider client, in its own words.
// The real implementations live in @threadline/context and ./provider; adapters in ./engine.
import type {
  ChatMessage,
  CompactionRecord,
  ContextUsage,
  MemoryFact,
  MessageKind,
  ProviderProfile,
  RouteOutput,
  Settings,
  StepReport,
  StoredMessage,
  Strategy,
  ToolCall,
  Trigger,
  VisibilityLevel,
} from '@threadline/protocol';
import type { ToolSpec } from './tools/types';

/** The view's own parts; the tool definitions are added by the budget (turn/budget.ts). */
export type Breakdown = Omit<ContextUsage['breakdown'], 'tools'>;

export interface ViewInput {
  history: StoredMessage[];
  compactions: CompactionRecord[];
  memoryBlock: string | null;
  systemPrompt: string;
  model: string;
}

/** The model's view of a session: what the next request sends, normalized and counted. */
export interface AgentView {
  messages: ChatMessage[];
  tokens: number;
  breakdown: Breakdown;
}

export interface CompactInput extends ViewInput {
  strategy: Strategy;
  trigger: Trigger;
  window: number;
  threshold: number;
  instructions: string | null;
  /** Token goal; recovery passes lower targets on each attempt. */
  targetTokens: number | null;
  facts: MemoryFact[];
  summarize: (messages: ChatMessage[], instructions: string | null) => Promise<string>;
  /** Preview: no model call, a stand-in summary of realistic length. */
  dryRun?: boolean;
  now: number;
  newId: () => string;
  /** The step about to run (`summarize`, `memory_checkpoint`…), for progress shown in place. */
  onStep?: (step: string) => void;
}

export interface InsertedMessage {
  /** Chosen by the engine so the view can anchor it; the store keeps it. */
  id?: string;
  role: ChatMessage['role'];
  kind: MessageKind;
  content: string;
  /** Placement in the view (anchorSeq, anchorOrder); the store adds compactionId. */
  meta?: Record<string, unknown>;
}

/** A compaction computed but not stored: the store applies it, preview only shows it. */
export interface CompactionPlan {
  ok: boolean;
  reason: string | null;
  hiddenIds: string[];
  inserted: InsertedMessage[];
  steps: StepReport[];
  tokensBefore: number;
  tokensAfter: number;
  summary: string | null;
  /** The record id the inserted messages already point at (meta.compactionId). */
  compactionId?: string;
  afterSeq?: number;
}

export interface TruncatedOutput {
  content: string;
  truncated: boolean;
}

export interface GateInput {
  toolName: string;
  args: Record<string, unknown>;
  facts: MemoryFact[];
  latestUserText: string;
  platform: NodeJS.Platform;
  visibility: VisibilityLevel;
  fileExists: (p: string) => boolean;
}

export interface GateOutcome {
  args: Record<string, unknown>;
  /** The `[CFPM_TOOL_GATE_V1] {...}` notice, or null when it must not be shown. */
  notice: string | null;
  rewritten: boolean;
}

export interface MemoryRefreshOutcome {
  facts: MemoryFact[];
  candidates: import('@threadline/protocol').MemoryCandidate[];
  /** The `[CFPM_RUNTIME_V1] {...}` notice, or null under the visibility rules. */
  notice: string | null;
}

export interface Engine {
  countMessageTokens(message: ChatMessage, model: string): number;
  /** `outputId` (the tool call id) goes into the marker so the model can page with read_tool_output. */
  truncateToolOutput(text: string, settings: Settings['toolOutput'], model: string, outputId: string): TruncatedOutput;
  /** The stored full output is itself capped (1 MiB) and marked. */
  capFullOutput(text: string): string;
  buildView(input: ViewInput): AgentView;
  compact(input: CompactInput): Promise<CompactionPlan>;
  shouldAutoCompact(tokens: number, window: number, threshold: number): boolean;
  /** null when the text is not a manual compaction phrase. */
  parseManualTrigger(text: string): { instructions: string | null } | null;
  isContextLimitError(err: unknown): boolean;
  refreshMemory(input: {
    sessionId: string;
    messages: ChatMessage[];
    /** Parse only the last N messages (the runtime decides the window: see turn/memory.ts). */
    recent?: number;
    facts: MemoryFact[];
    /** The session's stored candidate rows: a rejection already recorded is not recorded again. */
    candidates?: import('@threadline/protocol').MemoryCandidate[];
    now: number;
    newId: () => string;
    visibility: VisibilityLevel;
  }): MemoryRefreshOutcome;
  buildMemoryBlock(facts: MemoryFact[]): string | null;
  applyToolGate(input: GateInput): GateOutcome;
}

// ─── provider ───────────────────────────────────────────────────────────────────────────────

export interface StreamRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
  onDelta: (text: string) => void;
}

export interface StreamResult {
  content: string;
  toolCalls: ToolCall[];
  usage: { promptTokens: number; completionTokens: number } | null;
  finishReason: string | null;
}

export interface ProviderClient {
  streamChat(req: StreamRequest): Promise<StreamResult>;
  /** One non-streaming answer (summaries); `model` overrides the profile's model. */
  complete(req: { messages: ChatMessage[]; model?: string; signal?: AbortSignal }): Promise<string>;
  testConnection(): Promise<RouteOutput<'providers.test'>>;
}

export type ProviderFactory = (profile: ProviderProfile, apiKey: string | null) => ProviderClient;
