/**
 * `threadline-context gate <facts.json> --tool <name> --command <text> [--last-user <text>] [--json]`
 * Runs the pre-tool gate on one command against a facts file (an array of facts, `{ facts }`, or
 * the `compact --json` output with `memory.facts`). Bad input exits 2 with one line on stderr.
 */
import { existsSync, readFileSync } from 'node:fs';
import { STRATEGIES, type MemoryFact, type VisibilityLevel } from '@threadline/protocol';
import { applyToolGate, type GatePlatform } from '../gate';
import { parseVisibility } from '../memory/notice';
import { readArgs } from './args';
import { FactsFileError, parseFactsFile } from './facts';

export interface GateCliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  fileExists: (path: string) => boolean;
  readFile: (path: string) => string;
}

const defaultIo: GateCliIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  fileExists: (p) => existsSync(p),
  readFile: (p) => readFileSync(p, 'utf8'),
};

export const GATE_USAGE =
  'usage: threadline-context gate <facts.json> --tool <name> --command <text> [--last-user <text>] [--strategy <name>] [--visibility off|brief|debug] [--platform win32|posix] [--json]';

class UsageError extends Error {}

interface GateArgs {
  file: string;
  tool: string;
  command: string;
  lastUser: string | null;
  strategy: string;
  visibility: VisibilityLevel;
  platform: GatePlatform | undefined;
  json: boolean;
}

const VALUE_OPTIONS = ['tool', 'command', 'last-user', 'strategy', 'visibility', 'platform'] as const;

function parseArgs(argv: string[]): GateArgs {
  const args = argv[0] === 'gate' ? argv.slice(1) : argv;
  const { positional, values, flags } = readArgs(
    args,
    { values: VALUE_OPTIONS, flags: ['json'] },
    (m) => new UsageError(m),
  );
  if (positional.length !== 1) throw new UsageError('expected exactly one facts file');
  const tool = values.tool;
  const command = values.command;
  if (tool === undefined || tool.trim() === '') throw new UsageError('--tool is required');
  if (command === undefined) throw new UsageError('--command is required');
  const platform = values.platform;
  if (platform !== undefined && platform !== 'win32' && platform !== 'posix')
    throw new UsageError(`--platform must be win32 or posix, got ${platform}`);
  const rawVisibility = values.visibility ?? 'brief';
  const visibility = parseVisibility(rawVisibility);
  if (visibility === null)
    throw new UsageError(
      `--visibility must be off, brief or debug (aliases: none, disabled, 0, verbose, full, 2), got '${rawVisibility}'`,
    );
  const strategy = values.strategy ?? 'cfpm_memory_v1';
  if (!(STRATEGIES as readonly string[]).includes(strategy))
    throw new UsageError(`--strategy must be one of ${STRATEGIES.join(', ')}, got '${strategy}'`);
  return {
    file: positional[0]!,
    tool,
    command,
    lastUser: values['last-user'] ?? null,
    strategy,
    visibility,
    platform,
    json: flags.has('json'),
  };
}

function readFacts(io: GateCliIo, file: string): MemoryFact[] {
  let text: string;
  try {
    text = io.readFile(file);
  } catch {
    throw new UsageError(`cannot read facts file ${file}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UsageError(`facts file ${file} is not JSON`);
  }
  try {
    return parseFactsFile(raw, file);
  } catch (err) {
    if (err instanceof FactsFileError) throw new UsageError(err.message);
    throw err;
  }
}

export async function runGateCommand(argv: string[], io: GateCliIo = defaultIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${GATE_USAGE}\n`);
    return 0;
  }
  let args: GateArgs;
  let facts: MemoryFact[];
  try {
    args = parseArgs(argv);
    facts = readFacts(io, args.file);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`threadline-context gate: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const result = applyToolGate({
    toolName: args.tool,
    args: { command: args.command },
    facts,
    lastUserMessage: args.lastUser,
    strategy: args.strategy,
    enabled: true,
    visibility: args.visibility,
    fileExists: io.fileExists,
    platform: args.platform,
  });
  const command = result.command ?? args.command;
  if (args.json) {
    io.stdout(
      `${JSON.stringify({ rewritten: result.rewritten, command, notice: result.notice, reason: result.reason ?? null })}\n`,
    );
  } else {
    io.stdout(`${command}\n`);
    if (result.notice !== null) io.stderr(`${result.notice}\n`);
  }
  return 0;
}
