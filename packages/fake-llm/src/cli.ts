// fake-llm as a process for end-to-end tests: `tsx packages/fake-llm/src/cli.ts --port 0 --rules r.json`.
// Prints exactly one line `fake-llm listening on http://127.0.0.1:<port>/v1`, then serves until killed.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseRulesFile } from './control';
import { startFakeLlm } from './server';
import { ErrorStyleSchema } from './types';
import { errorMessage } from './errorMessage';

function fail(message: string): never {
  process.stderr.write(`fake-llm: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', default: '0' },
        rules: { type: 'string' },
        window: { type: 'string' },
        'error-style': { type: 'string', default: 'openai' },
        model: { type: 'string' },
        /** Comma-separated ids GET /v1/models lists. */
        models: { type: 'string' },
        'chunk-size': { type: 'string' },
        'delay-ms': { type: 'string' },
        /** Accept any message shape (strict provider checks off). */
        lax: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    fail(errorMessage(err));
  }
  const int = (name: string, v: string | undefined, min: number): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer ≥ ${min}, got "${v}"`);
    return n;
  };
  const style = ErrorStyleSchema.safeParse(values['error-style']);
  if (!style.success)
    fail(`--error-style must be one of openai|anthropic|ollama|lmstudio, got "${values['error-style']}"`);
  let rules: ReturnType<typeof parseRulesFile> = { rules: [] };
  if (values.rules) {
    try {
      rules = parseRulesFile(JSON.parse(readFileSync(values.rules, 'utf8')));
    } catch (err) {
      fail(`cannot read rules from ${values.rules}: ${errorMessage(err)}`);
    }
  }
  const server = await startFakeLlm({
    port: int('port', values.port, 0),
    rules: rules.rules,
    defaultReply: rules.defaultReply,
    contextWindow: int('window', values.window, 1) ?? null,
    errorStyle: style.data,
    model: values.model,
    models: values.models
      ?.split(',')
      .map((m) => m.trim())
      .filter((m) => m !== ''),
    chunkSize: int('chunk-size', values['chunk-size'], 1),
    delayMsPerChunk: int('delay-ms', values['delay-ms'], 0),
    strict: !values.lax,
  });
  process.stdout.write(`fake-llm listening on ${server.url}\n`);
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

void main();
