import type { SandboxRun } from '../sandbox/service';
import type { ToolDefinition } from '../tools/types';
import { effectivePolicy } from './approvals';
import type { Turn } from './turn';

/** How an explore helper's command may run (see readOnlyCommand). */
export type ReadOnlyCommand =
  | { policy: 'auto' | 'ask'; run: SandboxRun; refused: null }
  | { policy: 'deny'; run: null; refused: null }
  | { policy: 'deny'; run: null; refused: string };

/**
 * A command of a helper whose commands may change nothing (`helper.readOnlyCommands`, the explore
 * role): it runs only inside the OS sandbox with the working folder mounted read-only, whatever
 * the policy says, so what it runs can read but not change the project. The parent's policy still
 * applies on top (deny stays deny, ask still asks): a helper's boundary is never wider than its
 * parent's. With no sandbox on this machine, or when the model asks to leave it, it is refused.
 */
export async function readOnlyCommand(
  scope: Turn,
  tool: Pick<ToolDefinition, 'name' | 'readOnly' | 'autoApprove' | 'sandbox'>,
  args: unknown,
): Promise<ReadOnlyCommand> {
  const policy = effectivePolicy(scope, tool);
  if (policy === 'deny') return { policy: 'deny', run: null, refused: null };
  if (tool.sandbox?.outside(args))
    return {
      policy: 'deny',
      run: null,
      refused:
        'Error: refused: this helper only reads (role explore); its commands run in a read-only sandbox and cannot leave it.',
    };
  const service = scope.deps.sandbox;
  const info = service ? await service.info() : null;
  if (!service || !info || info.kind === 'none')
    return {
      policy: 'deny',
      run: null,
      refused:
        'Error: refused: this helper only reads (role explore), and without an OS sandbox on this machine a command cannot be kept from writing. Use read_file, list_dir, grep and glob.',
    };
  const run: SandboxRun = { ...(await service.run(scope.sandboxNetwork(), scope.sessionId)), readOnlyFolder: true };
  return { policy: policy === 'ask' ? 'ask' : 'auto', run, refused: null };
}
