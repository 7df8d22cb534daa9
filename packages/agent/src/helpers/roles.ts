import { BUILTIN_HELPER_ROLES, type Settings } from '@threadline/protocol';
import { isLocalProvider } from '../provider/local';
import { DELEGATE_TOOL_NAME } from '../tools/delegate';
import { ToolRegistry } from '../tools/registry';
import type { DelegateRequest } from '../tools/types';
import type { Turn } from '../turn/turn';

/**
 * The explore role's tools: reading and searching, the todo list, and commands, which run in a
 * read-only sandbox (turn/readOnlyCommands.ts). Of the parent's tools: never more than it has.
 */
export const EXPLORE_TOOLS: readonly string[] = [
  'read_file',
  'list_dir',
  'grep',
  'glob',
  'read_tool_output',
  'manage_todo_list',
  'shell',
];

/** One task of a delegate call, checked and resolved: what its helper gets. */
export interface HelperPlan {
  index: number;
  task: string;
  role: string;
  /** Its tools, of the parent's, in the parent's order (delegate never: depth 1). */
  tools: string[];
  model: string;
  /** explore: commands only in a read-only sandbox. */
  readOnlyCommands: boolean;
}

/** Helpers of one call running at once: the setting, else 1 for a model on this machine and 3 for others. */
export function helperConcurrency(settings: Settings, profile: Parameters<typeof isLocalProvider>[0]): number {
  return settings.helpers.concurrency ?? (isLocalProvider(profile) ? 1 : 3);
}

/** The role's tools among the parent's (by name, in the parent's order), delegate left out. */
function roleTools(settings: Settings, role: string, parentTools: readonly string[]): string[] | null {
  const own = parentTools.filter((n) => n !== DELEGATE_TOOL_NAME);
  if (role === 'work') return own;
  if (role === 'explore') return own.filter((n) => EXPLORE_TOOLS.includes(n));
  const defined = settings.helpers.roles.find((r) => r.name === role);
  return defined ? own.filter((n) => defined.tools.includes(n)) : null;
}

/**
 * A delegate call's tasks checked against the parent's boundary: a known role, tools only of that
 * role's (which are only of the parent's), a model only the parent's or one a role names. What
 * does not fit is an error the model reads, and no helper starts.
 */
export function planHelpers(parent: Turn, args: DelegateRequest): { plans: HelperPlan[] } | { error: string } {
  const { settings } = parent;
  const parentTools = parent
    .tools()
    .list()
    .map((t) => t.name);
  const roleNames = [...BUILTIN_HELPER_ROLES, ...settings.helpers.roles.map((r) => r.name)];
  const models = new Set([parent.profile.model, ...settings.helpers.roles.flatMap((r) => (r.model ? [r.model] : []))]);
  const plans: HelperPlan[] = [];
  for (const [index, t] of args.tasks.entries()) {
    const which = `task ${index + 1}`;
    const role = t.role ?? 'explore';
    const allowed = roleTools(settings, role, parentTools);
    if (allowed === null) return { error: `Error: ${which}: no role "${role}". Roles: ${roleNames.join(', ')}.` };
    const outside = (t.tools ?? []).filter((n) => !allowed.includes(n));
    if (outside.length > 0)
      return {
        error: `Error: ${which}: the ${role} role has no ${outside.join(', ')}. Its tools: ${allowed.join(', ') || 'none'}.`,
      };
    const roleModel = settings.helpers.roles.find((r) => r.name === role)?.model ?? null;
    const model = t.model ?? roleModel ?? parent.profile.model;
    if (!models.has(model))
      return { error: `Error: ${which}: a helper may use ${[...models].join(', ')}, not ${model}.` };
    const tools = t.tools ? allowed.filter((n) => t.tools!.includes(n)) : allowed;
    plans.push({ index, task: t.task, role, tools, model, readOnlyCommands: role === 'explore' });
  }
  return { plans };
}

/** A helper's tools: the parent's registry narrowed to its plan (never delegate). */
export function helperRegistry(parent: Turn, plan: HelperPlan): ToolRegistry {
  return new ToolRegistry(
    parent
      .tools()
      .list()
      .filter((t) => t.name !== DELEGATE_TOOL_NAME && plan.tools.includes(t.name)),
  );
}

/**
 * What a helper is told besides the base prompt: that it works for another agent on one task,
 * what its role lets it do, and how to report.
 */
export function helperPrompt(plan: HelperPlan): string {
  return [
    '',
    '# You are a helper',
    'Another agent gave you one task (the user message). You cannot ask anyone anything: work it out with your tools.',
    plan.readOnlyCommands
      ? `Role: explore. You only read: your commands run in a sandbox where the working folder is read-only, so nothing you run can change the project. Your tools: ${plan.tools.join(', ')}.`
      : `Role: ${plan.role}. Your tools: ${plan.tools.join(', ') || 'none'}.`,
    'Your final answer is your report, the only thing the other agent reads of your work: what you found or did, with file paths (and line numbers where they help), and what you could not find or finish. Keep it short: at most about 400 words.',
  ].join('\n');
}
