export * from './types';
export { BUILTIN_TOOLS, ToolRegistry, parseToolCall, runParsedTool, type ParsedCall } from './registry';
export { shellTool, runShell, SHELL_CAPTURE_CAP } from './shell';
export { readFileTool, writeFileTool, listDirTool } from './files';
export { readToolOutputTool } from './readToolOutput';
export { todoTool, renderTodos, TODO_TOOL_NAME } from './todo';
export { editFileTool, planEdit } from './edit';
export { grepTool, globTool } from './search';
export { fileDiff } from './diff';
