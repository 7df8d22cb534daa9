import { createHash } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { MCP_TOOL_SEPARATOR } from '@threadline/protocol';
import * as z from 'zod';
import type { JsonSchemaObject, ToolDefinition, ToolResult } from '../tools/types';

/** OpenAI (and most OpenAI-compatible providers) accept `^[a-zA-Z0-9_-]{1,64}$` as a function name. */
export const TOOL_NAME_MAX = 64;
const SERVER_PART_MAX = 24;

function clean(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'x';
}

function shortHash(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 6);
}

/**
 * `<server>__<tool>` in the provider's charset and length. A name that had to be cut or changed
 * in a way that could collide gets a short hash of the original, so two tools never share one.
 */
export function modelToolName(server: string, tool: string): string {
  const part = (raw: string, max: number): string => {
    const c = clean(raw).replace(/__+/g, '_');
    // Changed characters could make two names one ("a.b" and "a_b"): the hash keeps them apart.
    const changed = c !== raw;
    if (!changed && c.length <= max) return c;
    return `${c.slice(0, max - 7)}_${shortHash(raw)}`;
  };
  const s = part(server, SERVER_PART_MAX);
  return `${s}${MCP_TOOL_SEPARATOR}${part(tool, TOOL_NAME_MAX - s.length - MCP_TOOL_SEPARATOR.length)}`;
}

const validators = new AjvJsonSchemaValidator();

/**
 * The tool's input schema as a zod check, so the registry's own path answers a call with wrong
 * arguments with an error the model can read. The JSON Schema is checked by the SDK's validator
 * (ajv); a schema ajv cannot compile lets the server judge the arguments itself.
 */
function argsFromSchema(schema: Tool['inputSchema']): z.ZodType<Record<string, unknown>> {
  // A tool's schema object lives as long as its server's tool list: compile it once.
  const cached = compiled.get(schema);
  if (cached) return cached;
  const made = buildArgs(schema);
  compiled.set(schema, made);
  return made;
}

const compiled = new WeakMap<object, z.ZodType<Record<string, unknown>>>();

function buildArgs(schema: Tool['inputSchema']): z.ZodType<Record<string, unknown>> {
  let check: ((v: unknown) => string | null) | null = null;
  try {
    const v = validators.getValidator(schema as Parameters<typeof validators.getValidator>[0]);
    check = (input) => {
      const r = v(input);
      return r.valid ? null : r.errorMessage;
    };
  } catch {
    check = null;
  }
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const problem = check?.(value) ?? null;
    if (problem !== null) ctx.addIssue({ code: 'custom', message: `does not match the tool's schema: ${problem}` });
  });
}

/** The JSON schema sent to the provider: an object schema, as function calling requires. */
function parameters(schema: Tool['inputSchema']): JsonSchemaObject {
  const { $schema: _drop, ...rest } = schema as Record<string, unknown>;
  return { ...(rest as object), type: 'object', properties: (schema.properties ?? {}) as Record<string, unknown> };
}

export interface McpToolSource {
  serverId: string;
  serverName: string;
  autoApprove: boolean | string[];
  call: (
    tool: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; timeoutMs: number },
  ) => Promise<CallToolResult>;
}

/** An MCP tool as one of the agent's tools: same registry, approvals, truncation and history. */
export function mcpToolDefinition(source: McpToolSource, tool: Tool): ToolDefinition<Record<string, unknown>> {
  const name = modelToolName(source.serverName, tool.name);
  const auto =
    source.autoApprove === true || (Array.isArray(source.autoApprove) && source.autoApprove.includes(tool.name));
  return {
    name,
    description: (tool.description ?? tool.title ?? tool.name).slice(0, 1024),
    parameters: parameters(tool.inputSchema),
    // A server's readOnlyHint is its own claim: the default stays ask (the user decides).
    readOnly: false,
    autoApprove: auto,
    mcp: { server: source.serverName, tool: tool.name },
    args: argsFromSchema(tool.inputSchema),
    run: async (args, ctx) => {
      const result = await source.call(tool.name, args, { signal: ctx.signal, timeoutMs: ctx.shellTimeoutMs });
      return toToolResult(source, tool.name, result);
    },
  };
}

const IMAGE_BYTES_KEPT = 2 * 1024 * 1024;
const STRUCTURED_CHARS_KEPT = 200_000;

function kib(base64: string): string {
  return `${Math.max(1, Math.round((base64.length * 3) / 4 / 1024))} KB`;
}

/**
 * What the model reads is text: text blocks, embedded text resources, and placeholders for
 * images and binary data. The card shows more from `meta.mcp`: images and structured content.
 */
export function toToolResult(source: Pick<McpToolSource, 'serverName'>, tool: string, r: CallToolResult): ToolResult {
  const parts: string[] = [];
  const images: { mimeType: string; data: string }[] = [];
  let imageBytes = 0;
  for (const c of r.content ?? []) {
    if (c.type === 'text') parts.push(c.text);
    else if (c.type === 'image') {
      parts.push(`[image ${c.mimeType}, ${kib(c.data)}]`);
      if (imageBytes + c.data.length <= IMAGE_BYTES_KEPT) {
        images.push({ mimeType: c.mimeType, data: c.data });
        imageBytes += c.data.length;
      }
    } else if (c.type === 'audio') parts.push(`[audio ${c.mimeType}, ${kib(c.data)}]`);
    else if (c.type === 'resource') {
      const res = c.resource;
      parts.push('text' in res ? res.text : `[resource ${res.uri} (${res.mimeType ?? 'binary'})]`);
    } else if (c.type === 'resource_link') parts.push(`[resource link ${c.name}: ${c.uri}]`);
  }
  const structured = r.structuredContent;
  // The spec asks servers to mirror structured content as text; when one does not, the model
  // still needs it.
  if (structured !== undefined && parts.length === 0) parts.push(JSON.stringify(structured, null, 2));
  const text = parts.join('\n');
  const meta: Record<string, unknown> = { mcp: { server: source.serverName, tool } };
  const m = meta.mcp as Record<string, unknown>;
  if (images.length > 0) m.images = images;
  if (structured !== undefined && JSON.stringify(structured).length <= STRUCTURED_CHARS_KEPT) m.structured = structured;
  if (r.isError === true) return { ok: false, content: `Error: ${text || 'the tool reported an error'}`, meta };
  return { ok: true, content: text === '' ? '(no output)' : text, meta };
}
