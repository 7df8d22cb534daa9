import type { ServerResponse } from 'node:http';
import * as z from 'zod';
import { sendJson } from './http';
import type { ServerState } from './state';
import { ErrorStyleSchema, FakeReplySchema, FakeRulesFileSchema, type FakeRule } from './types';
import { errorMessage } from './errorMessage';

/** Normalizes a rules file (an array, or `{ rules, defaultReply }`) into rules + default. */
export function parseRulesFile(json: unknown): { rules: FakeRule[]; defaultReply?: z.output<typeof FakeReplySchema> } {
  const parsed = FakeRulesFileSchema.parse(json);
  return Array.isArray(parsed) ? { rules: parsed } : { rules: parsed.rules, defaultReply: parsed.defaultReply };
}

const EnqueueSchema = z.union([z.array(FakeReplySchema), z.object({ replies: z.array(FakeReplySchema) })]);
const ConfigSchema = z.object({
  contextWindow: z.number().int().positive().nullable().optional(),
  errorStyle: ErrorStyleSchema.optional(),
  models: z.array(z.string().min(1)).optional(),
  noVisionModels: z.array(z.string().min(1)).optional(),
  strict: z.boolean().optional(),
});

/**
 * Control routes under `/_fake/` so a test driving the server as a child process (e2e) can change
 * its script at run time: POST rules | enqueue | config | reset, GET requests.
 */
export function handleControl(
  state: ServerState,
  path: string,
  method: string,
  raw: string,
  res: ServerResponse,
): void {
  try {
    const body: unknown = raw.length > 0 ? JSON.parse(raw) : {};
    if (method === 'GET' && path === '/_fake/requests') return sendJson(res, 200, state.requests);
    if (method !== 'POST') return sendJson(res, 405, { error: { message: 'POST only' } });
    switch (path) {
      case '/_fake/rules': {
        const { rules, defaultReply } = parseRulesFile(body);
        state.book.setRules(rules, defaultReply);
        return sendJson(res, 200, { ok: true, rules: rules.length });
      }
      case '/_fake/enqueue': {
        const p = EnqueueSchema.parse(body);
        const replies = Array.isArray(p) ? p : p.replies;
        state.book.enqueue(replies);
        return sendJson(res, 200, { ok: true, queued: replies.length });
      }
      case '/_fake/config': {
        const c = ConfigSchema.parse(body);
        if (c.contextWindow !== undefined) state.contextWindow = c.contextWindow;
        if (c.errorStyle) state.errorStyle = c.errorStyle;
        if (c.models) state.models = c.models;
        if (c.noVisionModels) state.noVisionModels = c.noVisionModels;
        if (c.strict !== undefined) state.strict = c.strict;
        return sendJson(res, 200, {
          ok: true,
          contextWindow: state.contextWindow,
          errorStyle: state.errorStyle,
          models: state.models,
          noVisionModels: state.noVisionModels,
          strict: state.strict,
        });
      }
      case '/_fake/reset':
        state.holds.releaseAll();
        state.book.clear();
        state.requests.length = 0;
        state.chatCount = 0;
        state.cache.clear();
        return sendJson(res, 200, { ok: true });
      default:
        return sendJson(res, 404, { error: { message: `unknown control route ${path}` } });
    }
  } catch (err) {
    return sendJson(res, 400, { error: { message: errorMessage(err) } });
  }
}
