import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { errorMessage, ChatMessageSchema, type ChatMessage } from '@threadline/protocol';

/**
 * A chat JSON file: an array of OpenAI chat messages or `{ "messages": [...] }`. zod/mini, as the
 * message schema itself (protocol messages.ts): reading a file loads no more of zod than that.
 */
export const ChatFileSchema = z.union([
  z.array(ChatMessageSchema),
  z.looseObject({ messages: z.array(ChatMessageSchema) }),
]);

let englishIssues = false;

export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/** Parses the text of a chat file; throws InputError with one readable line. */
export function parseChatFile(text: string, name = 'input'): ChatMessage[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${name}: not valid JSON (${errorMessage(err)})`);
  }
  // zod/mini words its issues only once a locale is set (zod's full API sets English on load).
  if (!englishIssues) {
    z.config(en());
    englishIssues = true;
  }
  const parsed = ChatFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new InputError(
      `${name}: expected an array of chat messages or {"messages": [...]}${where}: ${issue?.message ?? 'wrong shape'}`,
    );
  }
  return Array.isArray(parsed.data) ? parsed.data : parsed.data.messages;
}

export function readChatFile(file: string): ChatMessage[] {
  if (!existsSync(file)) throw new InputError(`${file}: no such file`);
  return parseChatFile(readFileSync(file, 'utf8'), file);
}

/** The repository root: the nearest folder above this file holding pnpm-workspace.yaml. */
export function repoRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'pnpm-workspace.yaml'))) {
    const up = path.dirname(dir);
    if (up === dir) return path.resolve(from, '../../../..');
    dir = up;
  }
  return dir;
}

/** The 18 real, public agent runs the engine is tested and benchmarked on: `<repo>/fixtures/transcripts`. */
export function transcriptsDir(): string {
  return path.resolve(repoRoot(), 'fixtures/transcripts');
}

/** The paths of a folder's chat files (`*.json`), smallest first (each file stat'ed once). */
export function transcriptFilesBySize(dir = transcriptsDir()): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ file: path.join(dir, f), size: statSync(path.join(dir, f)).size }))
    .sort((a, b) => a.size - b.size)
    .map((x) => x.file);
}

export interface Transcript {
  name: string;
  messages: ChatMessage[];
}

/** Every transcript of a folder, sorted by name; [] when the folder is absent. */
export function loadTranscripts(dir = transcriptsDir()): Transcript[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), messages: readChatFile(path.join(dir, f)) }));
}
