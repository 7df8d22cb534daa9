import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from './args';
import { runCompact, runCount, type CliIo } from './commands';
import { InputError, transcriptsDir } from './transcripts';
import { runGateCommand, type GateCliIo } from './gate';
import { errorMessage } from '@threadline/protocol';

export const USAGE = `usage: threadline-context <command>
  count <file> [--model <id>] [--window <tokens>] [--json]
  compact <file> [--strategy legacy_segmented|cfpm_memory_v1|progressive|priority_chain] [--model <id>]
          [--window <tokens>] [--target <tokens>] [--threshold <0..1>] [--manual] [--instructions <text>]
          [--summary-text <text> | --provider-url <url>] [--json]
  bench [--quick] [--transcripts <dir>]
  gate ...   (see: threadline-context gate --help)
<file> is a JSON array of OpenAI chat messages or {"messages": [...]}.`;

export interface MainIo extends CliIo {
  err: (line: string) => void;
}

const stdio: MainIo = {
  out: (l) => process.stdout.write(l + '\n'),
  err: (l) => process.stderr.write(l + '\n'),
};

/** The gate command writes whole lines through the same io as the other commands. */
function gateIo(io: MainIo): GateCliIo {
  const lines = (write: (line: string) => void) => (text: string) => {
    for (const line of text.replace(/\n$/, '').split('\n')) write(line);
  };
  return {
    stdout: lines(io.out),
    stderr: lines(io.err),
    fileExists: (p) => existsSync(p),
    readFile: (p) => readFileSync(p, 'utf8'),
  };
}

/** Runs one CLI invocation; returns the exit code (2 = bad input, with one line on stderr). */
export async function main(argv: readonly string[], io: MainIo = stdio): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'count':
        return runCount(parseArgs(rest), io);
      case 'compact':
        return await runCompact(parseArgs(rest), io);
      case 'bench': {
        const args = parseArgs(rest);
        // Loaded on demand: the bench pulls in generators and tables the other commands never need.
        const { runContextBench } = await import('../../bench/index');
        await runContextBench({
          transcriptsDir: args.values.transcripts ?? transcriptsDir(),
          quick: args.flags.has('quick'),
        });
        return 0;
      }
      case 'gate':
        return await runGateCommand([...rest], gateIo(io));
      case undefined:
        // No command is a usage error: the usage goes to stderr and the exit code says so.
        io.err(USAGE);
        return 2;
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return 0;
      default:
        throw new InputError(`unknown command '${command}' (expected count, compact, bench or gate)`);
    }
  } catch (err) {
    if (err instanceof InputError) {
      io.err(`threadline-context: ${err.message}`);
      return 2;
    }
    io.err(`threadline-context: ${errorMessage(err)}`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // No top-level await: the CLI's bundle is CommonJS (scripts/buildCli.ts).
  void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
