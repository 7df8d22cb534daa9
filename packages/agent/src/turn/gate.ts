import type { ToolDefinition } from '../tools/types';
import type { TurnScope } from './deps';

/** Only shell-like tools are gated (SPEC §5): the name holds `shell` or `terminal`. */
export function isShellLike(name: string): boolean {
  return /shell|terminal/i.test(name);
}

/**
 * gate: with cfpm_memory_v1 and the pre-tool gate on, a known-folder probe is rewritten to the
 * known path from trusted facts. Rewrite-and-run, never block; any failure leaves args as they were.
 */
export function gateToolCall(
  scope: TurnScope,
  tool: Pick<ToolDefinition, 'name'>,
  args: unknown,
  latestUserText: string,
): { args: unknown; notice: string | null; rewritten: boolean } {
  const { deps, settings, sessionId } = scope;
  const unchanged = { args, notice: null, rewritten: false };
  if (settings.compaction.strategy !== 'cfpm_memory_v1' || !settings.cfpm.preToolGate) return unchanged;
  if (!isShellLike(tool.name) || typeof args !== 'object' || args === null) return unchanged;
  try {
    const out = deps.engine.applyToolGate({
      toolName: tool.name,
      args: args as Record<string, unknown>,
      facts: deps.store.memory.facts(sessionId),
      latestUserText,
      platform: deps.platform,
      visibility: settings.cfpm.toolGateVisibility ?? settings.cfpm.runtimeVisibility,
      fileExists: deps.fileExists,
    });
    return out.rewritten ? { args: out.args, notice: out.notice, rewritten: true } : unchanged;
  } catch {
    return unchanged;
  }
}
