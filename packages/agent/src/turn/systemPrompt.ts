/**
 * The agent's standing instructions; short on purpose, every token of it is in every request. It
 * is the start of every request's prefix (the provider's prompt cache), so nothing in it changes
 * from turn to turn: the date is the day the session started (its first message), not today, and
 * the rest (folder, how commands run) changes only when the user changes it.
 */
export function systemPrompt(opts: {
  /** The session's working folder, where its tools run (not the app's own process folder). */
  folder: string;
  platform: NodeJS.Platform;
  /** When the session started (its first message): the prompt's date. */
  startedAt: number;
  /** How commands run: sandboxed or not, network on or off (sandbox/service.ts commandsSentence). */
  commands?: string;
}): string {
  const shell = opts.platform === 'win32' ? 'PowerShell' : 'bash';
  return [
    "You are Threadline, a careful local agent working on the user's computer.",
    `Working directory: ${opts.folder}. Platform: ${opts.platform} (shell: ${shell}). Session started: ${new Date(opts.startedAt).toISOString().slice(0, 10)}.`,
    'Use the tools to inspect before you change anything. Long tool outputs are truncated; use read_tool_output to page through them.',
    'Keep a task list with manage_todo_list for multi-step work. Answer concisely when done.',
    ...(opts.commands !== undefined ? [opts.commands] : []),
  ].join('\n');
}
