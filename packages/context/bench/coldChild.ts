// One fresh process of the cold-compaction bench (cold.ts): reads one transcript, then times the
// first compaction of this process: loading the tokenizer's vocabulary, counting every message,
// compacting (default strategy, extractive summary). Prints {"ms": …} on stdout.
import { readChatFile } from '../src/cli/transcripts';
import { buildView, compact, extractiveSummarizer, historyFromChatMessages, MemoryTokenCache } from '../src/index';
import { MODEL } from './common';

const file = process.argv[2]!;
const strategy = (process.argv[3] ?? 'legacy_segmented') as Parameters<typeof compact>[0]['strategy'];
const messages = readChatFile(file);
const t0 = performance.now();
const tokenCache = new MemoryTokenCache();
const history = historyFromChatMessages(messages, { model: MODEL, sessionId: 't', tokenCache });
const before = buildView({ history, model: MODEL, tokenCache });
const r = await compact({
  history,
  strategy,
  model: MODEL,
  window: Math.ceil(before.tokens / 0.9),
  trigger: 'auto',
  threshold: 0.85,
  summarizer: extractiveSummarizer,
  tokenCache,
  now: () => 0,
});
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, ok: r.ok, before: r.tokensBefore, after: r.tokensAfter }) + '\n');
