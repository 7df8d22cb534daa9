import type { SandboxRun } from '../sandbox/service';
import type { ToolDefinition } from '../tools/types';
import type { Turn } from './turn';

/**
 * A command of a helper whose commands may change nothing (`helper.readOnlyCommands`, the explore
 * role) runs only inside the OS sandbox with the working folder mounted read-only, whatever the
 * policy, the rules or the card say, so what it runs can read but not change the project. The
 * rules still decide whether it runs, asks or is denied (turn/approvals.ts): a helper's boundary
 * is never wider than its parent's. With no sandbox on this machine, or when the model asks to
 * leave it, it is refused: this says why (null: it may run, confined).
 */
export async function readOnlyRefusal(
  turn: Turn,
  tool: Pick<ToolDefinition, 'sandbox'>,
  args: unknown,
): Promise<string | null> {
  if (tool.sandbox?.outside(args))
    return 'Error: refused: this helper only reads (role explore); its commands run in a read-only sandbox and cannot leave it.';
  const service = turn.deps.sandbox;
  const info = service ? await service.info() : null;
  if (!service || !info || info.kind === 'none')
    return 'Error: refused: this helper only reads (role explore), and without an OS sandbox on this machine a command cannot be kept from writing. Use read_file, list_dir, grep and glob.';
  return null;
}

/** Where a confined command runs: the session's sandbox run, the working folder read-only too. */
export function readOnly(run: SandboxRun): SandboxRun {
  return { ...run, readOnlyFolder: true };
}
