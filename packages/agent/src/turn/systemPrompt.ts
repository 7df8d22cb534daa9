/**
 * The agent's standing instructions; short on purpose, every token of it is in every request. It
 * is the start of every request's prefix (the provider's prompt cache), so nothing in it changes
 * from turn to turn: the date is the day the session started (its first message), not today.
 */
export function systemPrompt(opts: { cwd: string; platform: NodeJS.Platform; startedAt: number }): string {
  const shell = opts.platform === 'win32' ? 'PowerShell' : 'bash';
  return [
    "You are Threadline, a careful local agent working on the user's computer.",
    `Working directory: ${opts.cwd}. Platform: ${opts.platform} (shell: ${shell}). Session started: ${new Date(opts.startedAt).toISOString().slice(0, 10)}.`,
    'Use the tools to inspect before you change anything. Long tool outputs are truncated; use read_tool_output to page through them.',
    'Keep a task list with manage_todo_list for multi-step work. Answer concisely when done.',
  ].join('\n');
}
