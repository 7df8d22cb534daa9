import { BUILTIN_HELPER_ROLES, type Settings } from '@threadline/protocol';

/**
 * What makes a turn a helper's (the delegate tool; helpers/helperTurn.ts builds it). Plain data
 * the view, the tool step and the loop read: a helper's system prompt and memory block, how its
 * commands run, the checkpoint it shares with its parent's turn.
 */
export interface HelperScope {
  parentSessionId: string;
  /** The parent's delegate call. */
  toolCallId: string;
  role: string;
  /** The helper's part of the system prompt: what it is, its role, how it reports. */
  prompt: string;
  /** The parent's memory facts as a block (read-only), as they were when the helper started; null: none. */
  memoryBlock: string | null;
  /** Commands run only in the OS sandbox, with the working folder read-only (explore). */
  readOnlyCommands: boolean;
}

/**
 * The parent's system prompt line about the user's helper roles and the models a helper may be
 * given (the delegate tool's description names the built-in roles). null: no role of the user's.
 * It changes only when the user edits the roles, so the cached prefix holds in between.
 */
export function helperRolesSection(settings: Settings): string | null {
  const roles = settings.helpers.roles;
  if (roles.length === 0) return null;
  const models = [...new Set(roles.flatMap((r) => (r.model ? [r.model] : [])))];
  return [
    `Helper roles for delegate besides ${BUILTIN_HELPER_ROLES.join(' and ')}:`,
    ...roles.map((r) => `- ${r.name}: ${r.description} (tools: ${r.tools.join(', ')})`),
    ...(models.length > 0 ? [`Models a helper may be given: ${models.join(', ')}.`] : []),
  ].join('\n');
}
