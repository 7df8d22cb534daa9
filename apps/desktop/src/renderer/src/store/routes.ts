import type { RouteInput, RouteName, RouteOutput } from '@threadline/protocol';
import { call } from '../transport';

/**
 * The runtime's routes that components use for what the store does not keep (a diff to show, a
 * form's save, a list read for one panel), by domain and named for what they do. The rule
 * (docs/architecture.md, "Where a route call lives"): a route is called from `store/` only — a
 * slice action when the store keeps what comes back, one of these otherwise. Components, hooks and
 * lib/ never import `call` (eslint holds it), so every route the interface uses is listed here or
 * in a slice.
 */
const route =
  <R extends RouteName>(name: R) =>
  (input: RouteInput<R>): Promise<RouteOutput<R>> =>
    call(name, input);

export const attachmentRoutes = {
  add: route('attachments.add'),
  get: route('attachments.get'),
  discard: route('attachments.discard'),
};

export const chatRoutes = {
  retry: route('chat.retry'),
  fullOutput: route('messages.fullOutput'),
  search: route('search.messages'),
};

export const sessionRoutes = {
  update: route('sessions.update'),
  setModel: route('sessions.setModel'),
  export: route('sessions.export'),
};

export const contextRoutes = {
  measureDraft: route('context.measureDraft'),
  previewCompaction: route('compaction.preview'),
  fitMessage: route('compaction.fitMessage'),
};

export const checkpointRoutes = {
  diff: route('checkpoints.diff'),
};

export const instructionRoutes = {
  get: route('instructions.get'),
  setSession: route('instructions.setSession'),
};

export const sessionMemoryRoutes = {
  setFactStatus: route('memory.facts.setStatus'),
  upsertFact: route('memory.facts.upsert'),
};

export const projectMemoryRoutes = {
  decide: route('project.decide'),
  setFactStatus: route('project.facts.setStatus'),
  upsertFact: route('project.facts.upsert'),
  export: route('project.export'),
  import: route('project.import'),
};

export const mcpRoutes = {
  list: route('mcp.servers.list'),
  upsert: route('mcp.servers.upsert'),
  remove: route('mcp.servers.remove'),
  restart: route('mcp.servers.restart'),
  import: route('mcp.servers.import'),
  disableForSession: route('mcp.servers.sessionDisable'),
  approveTools: route('mcp.tools.approve'),
};

export const providerRoutes = {
  test: route('providers.test'),
  upsert: route('providers.upsert'),
  setActive: route('providers.setActive'),
  readWindow: route('providers.readWindow'),
  models: route('providers.models'),
  remove: route('providers.delete'),
};

export const sandboxRoutes = {
  status: route('sandbox.status'),
  setNetwork: route('sandbox.setNetwork'),
};

export const ruleRoutes = {
  list: route('rules.list'),
  save: route('rules.save'),
  remove: route('rules.remove'),
};

export const usageRoutes = {
  daily: route('usage.daily'),
  prices: route('usage.prices.list'),
  setPrices: route('usage.prices.set'),
  resendEstimate: route('usage.resendEstimate'),
};
