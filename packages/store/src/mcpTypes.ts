// The MCP servers part of @threadline/store's surface;
// types.ts re-exports it with the rest.
import type { McpServerUpsert } from '@threadline/protocol';

/** A stored MCP server without its secrets (env values, header values). */
export interface McpServerRecord {
  id: string;
  name: string;
  transport: 'stdio' | 'http';
  command: string | null;
  args: string[];
  url: string | null;
  envNames: string[];
  headerNames: string[];
  /** stdio: the child's folder as configured (null: a neutral folder under the data folder). */
  cwd: string | null;
  /** stdio: names of the app's environment variables the child gets beyond the core set. */
  envAllow: string[];
  enabled: boolean;
  startup: 'lazy' | 'launch';
  autoApprove: boolean | string[];
  createdAt: number;
  updatedAt: number;
}

export interface McpServersRepo {
  /** Oldest first. */
  list(): McpServerRecord[];
  get(id: string): McpServerRecord | null;
  /**
   * Creates (no id) or updates. `env` / `headers` undefined keeps them; given, they are the new
   * set of names, where a null value keeps the stored value of that name. Names are unique.
   */
  upsert(input: McpServerUpsert): McpServerRecord;
  remove(id: string): void;
  /** The decrypted env values and headers, for the runtime that starts the server only. */
  secrets(id: string): { env: Record<string, string>; headers: Record<string, string> };
  /** The tools of a server the user approved (or that were pinned at its first listing). */
  pins(id: string): McpToolPin[];
  /** Pins these tools as they are now (replacing an older pin of the same name). */
  pin(id: string, tools: readonly Omit<McpToolPin, 'pinnedAt'>[]): void;
}

export interface McpToolPin {
  tool: string;
  /** sha256 of the tool's name, description and input schema. */
  hash: string;
  description: string;
  pinnedAt: number;
}
