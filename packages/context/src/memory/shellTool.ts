/**
 * Whether a tool is a shell: its name holds `shell`, `terminal`, `bash`, `exec`, `command`, `run`,
 * `powershell` or `cmd` (case-insensitive). The one rule for the pre-tool gate (which tools it
 * rewrites) and for memory (whose `command`/`cmd`/`script` argument is read as a command line).
 */
const SHELL_TOOL_NAME = /shell|terminal|bash|exec|command|run|powershell|cmd/i;

export function isShellToolName(name: string): boolean {
  return SHELL_TOOL_NAME.test(name);
}
