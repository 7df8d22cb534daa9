import { applyToolGate, isShellToolName } from '@threadline/context';
import { parseNotice, type GateRewrite } from '@threadline/protocol';
import type { ToolDefinition } from '../tools/types';
import type { Turn } from './turn';

export interface GateResult {
  /** What will run unless the user picks the original. */
  args: unknown;
  notice: string | null;
  /** The rewrite and its reason, told to the user before the call runs; null: unchanged. */
  rewritten: GateRewrite | null;
}

/**
 * gate: with cfpm_memory_v1 and the pre-tool gate on, a known-folder probe is rewritten to the
 * known path from trusted facts. Rewrite-and-run, never block; any failure leaves args as they were.
 */
export function gateToolCall(
  turn: Turn,
  tool: Pick<ToolDefinition, 'name'>,
  args: unknown,
  latestUserText: string,
): GateResult {
  const { deps, settings } = turn;
  const unchanged: GateResult = { args, notice: null, rewritten: null };
  if (settings.compaction.strategy !== 'cfpm_memory_v1' || !settings.cfpm.preToolGate) return unchanged;
  if (!isShellToolName(tool.name) || typeof args !== 'object' || args === null) return unchanged;
  try {
    const { platform, fileExists } = deps.workspace;
    const out = applyToolGate({
      toolName: tool.name,
      args: args as Record<string, unknown>,
      facts: turn.snapshot().facts,
      lastUserMessage: latestUserText,
      strategy: 'cfpm_memory_v1',
      enabled: true,
      // Stored whole: the renderer applies the gate visibility when it shows the notice.
      visibility: 'debug',
      fileExists,
      platform: platform === 'win32' ? 'win32' : 'posix',
    });
    const parsed = out.rewritten ? parseNotice(out.notice) : null;
    if (parsed?.type !== 'gate') return unchanged;
    const { target, path } = parsed.payload;
    return {
      args: out.args,
      notice: out.notice,
      rewritten: { target, path, rewrittenArguments: JSON.stringify(out.args) },
    };
  } catch {
    return unchanged;
  }
}
