import * as z from 'zod';
import type { JsonSchemaObject } from './types';

/** Drops what the tools API has no use for: `$schema` and the safe-integer bounds zod adds to every int. */
function prune(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(prune);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema') continue;
    if ((k === 'maximum' && v === Number.MAX_SAFE_INTEGER) || (k === 'minimum' && v === Number.MIN_SAFE_INTEGER))
      continue;
    out[k] = prune(v);
  }
  return out;
}

/**
 * A tool's JSON schema derived from the zod schema its arguments are parsed with, so what the
 * model is told and what is accepted cannot drift apart. `io: 'input'`: a field with a default
 * is optional to the model.
 */
export function toolParameters(args: z.ZodObject): JsonSchemaObject {
  return prune(z.toJSONSchema(args, { io: 'input' })) as JsonSchemaObject;
}
