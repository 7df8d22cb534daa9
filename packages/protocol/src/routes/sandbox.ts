import * as z from 'zod';
import { id, type RouteMap } from './define';

/** Which OS sandbox commands run in on this machine. */
export const SandboxKindSchema = z.enum(['bwrap', 'seatbelt', 'none']);
/** Why there is none: Settings turns it into one sentence with how to get one. */
export const NoSandboxReasonSchema = z.enum([
  'unsupported_platform',
  'bwrap_missing',
  'bwrap_broken',
  'seatbelt_missing',
  'disabled',
]);
export type NoSandboxReason = z.infer<typeof NoSandboxReasonSchema>;

export const SandboxStatusSchema = z.object({
  kind: SandboxKindSchema,
  reason: NoSandboxReasonSchema.nullable(),
  /** bwrap's own words when its trial run failed. */
  detail: z.string().nullable(),
  /** The session's "allow network for commands" switch (null when no session was named). */
  network: z.boolean().nullable(),
  /** The domains the switch allows, through the proxy (Settings → sandbox.networkDomains). */
  domains: z.array(z.string()),
});
export type SandboxStatus = z.infer<typeof SandboxStatusSchema>;

/**
 * Why a `shell` call asks although its policy is `sandboxed`: the model asked to run it outside
 * the sandbox (after the sandbox stopped it), or this machine has no sandbox.
 */
export const ToolSandboxSchema = z.object({
  state: z.enum(['outside_requested', 'unavailable']),
  reason: NoSandboxReasonSchema.optional(),
});
export type ToolSandbox = z.infer<typeof ToolSandboxSchema>;

/** The OS sandbox of commands and MCP servers, and a session's network switch. */
export const sandboxRoutes = {
  'sandbox.status': { input: z.object({ sessionId: id.optional() }).default({}), output: SandboxStatusSchema },
  /** Turns "allow network for commands" on or off for one session (the renderer confirms turning it on). */
  'sandbox.setNetwork': {
    input: z.object({ sessionId: id, allowed: z.boolean() }),
    output: SandboxStatusSchema,
  },
} satisfies RouteMap;
