import type { ApprovalPolicy, ToolSandbox } from '@threadline/protocol';
import type { SandboxRun } from '../sandbox/service';
import type { ToolDefinition } from '../tools/types';
import type { Zone } from '../workspace/reach';
import type { Turn } from './turn';
import type { ApprovalDecision } from './sessionRuntime';

/**
 * Policy of one tool in one session: a per-session override wins; otherwise read-only tools (and tools the user auto-approved) run
 * on their own and the others follow the settings (default `ask`).
 */
export function effectivePolicy(
  scope: Turn,
  tool: Pick<ToolDefinition, 'name' | 'readOnly' | 'autoApprove'>,
): ApprovalPolicy {
  const override = scope.policyOverride(tool.name);
  if (override) return override;
  if (tool.readOnly || tool.autoApprove === true) return 'auto';
  return scope.settings.approvalPolicy;
}

/**
 * Policy of a file tool call by where its path leads (workspace/reach.ts): inside the folder it
 * runs on its own unless the user said otherwise for this tool; outside it, it follows the policy
 * of tools that change things (like shell: `ask` by default); credential places, and writes to
 * protected paths (workspace/protected.ts), always ask, whatever the policy or auto-approval.
 * `deny` for the tool always wins. The data folder never gets here (refused before).
 */
export function pathPolicy(scope: Turn, tool: Pick<ToolDefinition, 'name' | 'readOnly'>, zone: Zone): ApprovalPolicy {
  const override = scope.policyOverride(tool.name);
  const appWide = scope.settings.approvalPolicy;
  if (override === 'deny') return 'deny';
  if (zone === 'credential' || zone === 'protected') return 'ask';
  if (zone === 'outside') return override ?? appWide;
  return override ?? (appWide === 'deny' && !tool.readOnly ? 'deny' : 'auto');
}

/**
 * What a `sandboxed` policy comes to for one call: a tool that can run in the sandbox (shell)
 * runs there without asking when this machine has one and the model did not ask to leave it;
 * otherwise it asks, and `why` says so on the card. Other tools ask, as under `ask`.
 */
export async function sandboxedPolicy(
  scope: Turn,
  tool: Pick<ToolDefinition, 'sandbox'>,
  args: unknown,
): Promise<{ policy: 'auto' | 'ask'; run: SandboxRun | null; why: ToolSandbox | null }> {
  if (!tool.sandbox) return { policy: 'ask', run: null, why: null };
  if (tool.sandbox.outside(args)) return { policy: 'ask', run: null, why: { state: 'outside_requested' } };
  const service = scope.deps.sandbox;
  const info = service ? await service.info() : null;
  if (!service || !info || info.kind === 'none')
    return { policy: 'ask', run: null, why: { state: 'unavailable', reason: info?.reason ?? 'disabled' } };
  const login = scope.deps.process.loginShell ? await scope.deps.process.loginEnv() : null;
  const run = await service.run(scope.sessionId, {
    domains: scope.sandboxNetwork(),
    homeFolders: scope.settings.sandbox.homeFolders,
    ...(login?.PATH !== undefined ? { loginPath: login.PATH } : {}),
  });
  return { policy: 'auto', run, why: null };
}

/** Waits for chat.approve (or the turn's cancel) on one tool call. */
export function waitForApproval(scope: Turn, toolCallId: string): Promise<ApprovalDecision> {
  const rt = scope.runtime;
  return new Promise<ApprovalDecision>((resolve) => {
    if (scope.signal.aborted) {
      resolve('aborted');
      return;
    }
    const onAbort = (): void => {
      rt.pendingApprovals.delete(toolCallId);
      resolve('aborted');
    };
    scope.signal.addEventListener('abort', onAbort, { once: true });
    rt.pendingApprovals.set(toolCallId, (d) => {
      scope.signal.removeEventListener('abort', onAbort);
      rt.pendingApprovals.delete(toolCallId);
      // At once, not after the turn resumes: a chat.state right after chat.approve says so.
      rt.decided(toolCallId);
      resolve(d);
    });
  });
}
