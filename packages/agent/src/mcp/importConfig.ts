import { AppError, McpServerUpsertSchema, type McpServerUpsert } from '@threadline/protocol';
import * as z from 'zod';

/** One entry of Claude desktop's `mcpServers` (also what Cursor, goose and Cherry Studio paste). */
const EntrySchema = z.object({
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  type: z.string().optional(),
  transport: z.string().optional(),
  disabled: z.boolean().optional(),
});

export interface ParsedImport {
  servers: McpServerUpsert[];
  skipped: { name: string; reason: string }[];
}

/**
 * `{"mcpServers": {name: {command, args, env} | {url, headers}}}` → server configs. JSON that is
 * not that shape is refused with one sentence; an entry that cannot become a server is skipped
 * with its reason, and the others still come in.
 */
export function parseClaudeConfig(json: string, existingNames: string[]): ParsedImport {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    throw new AppError('invalid_input', `The text is not valid JSON: ${(err as Error).message}`);
  }
  const top = z.object({ mcpServers: z.record(z.string(), z.unknown()) }).safeParse(raw);
  if (!top.success)
    throw new AppError(
      'invalid_input',
      'Expected an object with "mcpServers" (the format of Claude desktop’s config).',
    );
  const taken = new Set(existingNames.map((n) => n.toLowerCase()));
  const out: ParsedImport = { servers: [], skipped: [] };
  for (const [name, value] of Object.entries(top.data.mcpServers)) {
    const skip = (reason: string): void => void out.skipped.push({ name, reason });
    if (taken.has(name.toLowerCase())) {
      skip('A server with this name already exists.');
      continue;
    }
    const e = EntrySchema.safeParse(value);
    if (!e.success) {
      skip('The entry is not an object with "command" or "url".');
      continue;
    }
    const kind = (e.data.type ?? e.data.transport ?? '').toLowerCase();
    if (kind === 'sse') {
      skip('SSE servers are not supported; use the server’s Streamable HTTP address.');
      continue;
    }
    const candidate = e.data.url
      ? { name, transport: 'http' as const, url: e.data.url, headers: e.data.headers }
      : e.data.command
        ? { name, transport: 'stdio' as const, command: e.data.command, args: e.data.args, env: e.data.env }
        : null;
    if (!candidate) {
      skip('The entry has neither "command" nor "url".');
      continue;
    }
    const parsed = McpServerUpsertSchema.safeParse({ ...candidate, enabled: e.data.disabled !== true });
    if (!parsed.success) {
      skip(parsed.error.issues.map((i) => `${i.path.join('.') || 'entry'}: ${i.message}`).join('; '));
      continue;
    }
    taken.add(name.toLowerCase());
    out.servers.push(parsed.data);
  }
  return out;
}
