import * as z from 'zod';
import { HelperRoleSchema } from './helpers';
import { STRATEGIES } from './values';

export const StrategySchema = z.enum(STRATEGIES);
export type Strategy = z.infer<typeof StrategySchema>;

export const VisibilityLevelSchema = z.enum(['off', 'brief', 'debug']);
export type VisibilityLevel = z.infer<typeof VisibilityLevelSchema>;

export const TruncationPolicySchema = z.enum(['none', 'bytes', 'tokens']);
export type TruncationPolicy = z.infer<typeof TruncationPolicySchema>;

/**
 * `sandboxed`: commands (shell) run without asking inside the OS sandbox, and ask where there is
 * none or when the model asks to leave it; every other tool that changes things asks, as under `ask`.
 */
export const ApprovalPolicySchema = z.enum(['ask', 'sandboxed', 'auto', 'deny']);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/** At most this many helpers run at once (the delegate tool takes at most 5 tasks). */
export const HELPER_CONCURRENCY_MAX = 5;

/** The user's helper roles: each name once. */
export const HelperRolesSchema = z
  .array(HelperRoleSchema)
  .max(20)
  .refine((roles) => new Set(roles.map((r) => r.name)).size === roles.length, {
    message: 'each role needs a name of its own',
  });

/** A folder as the user types it: absolute or starting with ~ (the runtime resolves and checks it). */
export const WorkingFolderSchema = z
  .string()
  .trim()
  .min(1)
  .max(4096)
  .refine((p) => p.startsWith('~') || p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\'), {
    message: 'must be an absolute path or start with ~',
  });

/** An environment variable name (POSIX portable set, which Windows accepts too). */
export const EnvNameSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be a variable name (letters, digits, _)');

/**
 * A network domain as the sandbox's proxy reads it: `example.com`, `*.example.com`, an optional
 * `:port`, or an IP literal (`127.0.0.1:8080`, `[::1]:8080`).
 */
export const NetworkDomainSchema = z
  .string()
  .trim()
  .max(253)
  .regex(
    /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i,
    'must be a domain (example.com, *.example.com, optionally :port) or an IP address',
  );

/** Package registries: what a session's network allows when it is switched on, until Settings say otherwise. */
export const DEFAULT_NETWORK_DOMAINS: readonly string[] = Object.freeze([
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'crates.io',
  'index.crates.io',
  'static.crates.io',
  'proxy.golang.org',
  'sum.golang.org',
  'rubygems.org',
  'repo.maven.apache.org',
  'repo1.maven.org',
  'github.com',
  'codeload.github.com',
  'objects.githubusercontent.com',
]);

export const LanguageSchema = z.enum(['en', 'zh-CN']);
export const ThemeSchema = z.enum(['light', 'dark', 'system']);

/** The longest custom instructions (Settings) and per-session system prompt accepted, in characters. */
export const CUSTOM_INSTRUCTIONS_MAX = 20_000;

export const SettingsSchema = z.object({
  /** null: the system's language (the browser's, or the OS's in the desktop app) until the user picks one. */
  language: LanguageSchema.nullable().default(null),
  theme: ThemeSchema.default('system'),
  approvalPolicy: ApprovalPolicySchema.default('sandboxed'),
  compaction: z
    .object({
      strategy: StrategySchema.default('legacy_segmented'),
      /** ≤ 0 or ≥ 1 disables auto compaction. */
      autoThreshold: z.number().min(-1).max(2).default(0.8),
    })
    .prefault({}),
  cfpm: z
    .object({
      runtimeVisibility: VisibilityLevelSchema.default('brief'),
      /** null: fall back to the runtime visibility. */
      toolGateVisibility: VisibilityLevelSchema.nullable().default(null),
      preToolGate: z.boolean().default(true),
    })
    .prefault({}),
  toolOutput: z
    .object({
      policy: TruncationPolicySchema.default('tokens'),
      maxTokens: z.number().int().positive().max(1_000_000).default(5000),
    })
    .prefault({}),
  /** What the agent may touch: the folder new sessions start in, the environment of children. */
  agent: z
    .object({
      /** Absolute path (or ~/…) new sessions work in; null: ~/Threadline. Never the home folder itself. */
      defaultWorkingFolder: WorkingFolderSchema.nullable().default(null),
      /** Variables passed to child processes even though their names look like secrets. */
      envPassthrough: z.array(EnvNameSchema).max(100).default([]),
      /** The user's instructions for every session, added to the system prompt ('' = none). */
      customInstructions: z.string().max(CUSTOM_INSTRUCTIONS_MAX).default(''),
    })
    .prefault({}),
  /** The OS sandbox of commands: what they may read of the home folder, where their network may go. */
  sandbox: z
    .object({
      /** Folders of the home folder (or anywhere) sandboxed commands may read, besides the toolchains. */
      homeFolders: z.array(WorkingFolderSchema).max(100).default([]),
      /** The domains a session's network reaches when it is switched on (through the proxy). */
      networkDomains: z
        .array(NetworkDomainSchema)
        .max(500)
        .default(() => [...DEFAULT_NETWORK_DOMAINS]),
    })
    .prefault({}),
  mcp: z
    .object({
      /** Tool definitions over this share of the window are pointed out, with servers to switch off. */
      toolShareWarning: z.number().min(0.01).max(1).default(0.25),
    })
    .prefault({}),
  /** Project memory: what sessions in a folder verified, kept for the next sessions there. */
  projectMemory: z
    .object({
      /** Collect candidates and put the accepted facts into the system prompt. */
      enabled: z.boolean().default(true),
      /** Facts verified by a command or a read go in without the inbox (the user's words always ask). */
      autoAccept: z.boolean().default(false),
      /** A command's fact is stale this many days after it last succeeded. */
      commandTtlDays: z.number().int().min(1).max(3650).default(30),
      /** The project memory block's budget in the system prompt, in tokens. */
      maxTokens: z.number().int().min(100).max(8000).default(800),
    })
    .prefault({}),
  /** The provider's prompt cache (issue 24): when a resend is likely to miss it, and worth a warning. */
  cache: z
    .object({
      /** Minutes a provider keeps a prompt cached after its last use (OpenAI and others: about 5). */
      ttlMinutes: z.number().min(1).max(1440).default(5),
      /** A request this large (prompt tokens) sent after the TTL makes the composer warn. */
      warnAboveTokens: z.number().int().min(1000).max(10_000_000).default(20_000),
    })
    .prefault({}),
  /** Helpers (the delegate tool): how many run at once, and the roles the user defined. */
  helpers: z
    .object({
      /** Helpers of one delegate call running at once; null: 1 with a local provider, else 3. */
      concurrency: z.number().int().min(1).max(HELPER_CONCURRENCY_MAX).nullable().default(null),
      roles: HelperRolesSchema.default([]),
    })
    .prefault({}),
});
export type Settings = z.infer<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = SettingsSchema.parse({});

/** A deep-partial patch, validated by merging then parsing with SettingsSchema. */
// No `.default()` anywhere in a patch: zod 4 fills defaults even inside `.optional()`, and a
// patch that sets the language would then also reset the theme. Strict at every level: a typo
// (`compaction.autoThresold`) is refused with its path, never dropped in silence.
export const SettingsPatchSchema = z.strictObject({
  language: LanguageSchema.nullable().optional(),
  theme: ThemeSchema.optional(),
  approvalPolicy: ApprovalPolicySchema.optional(),
  compaction: z
    .strictObject({ strategy: StrategySchema.optional(), autoThreshold: z.number().min(-1).max(2).optional() })
    .optional(),
  cfpm: z
    .strictObject({
      runtimeVisibility: VisibilityLevelSchema.optional(),
      toolGateVisibility: VisibilityLevelSchema.nullable().optional(),
      preToolGate: z.boolean().optional(),
    })
    .optional(),
  toolOutput: z
    .strictObject({
      policy: TruncationPolicySchema.optional(),
      maxTokens: z.number().int().positive().max(1_000_000).optional(),
    })
    .optional(),
  agent: z
    .strictObject({
      defaultWorkingFolder: WorkingFolderSchema.nullable().optional(),
      envPassthrough: z.array(EnvNameSchema).max(100).optional(),
      customInstructions: z.string().max(CUSTOM_INSTRUCTIONS_MAX).optional(),
    })
    .optional(),
  sandbox: z
    .strictObject({
      homeFolders: z.array(WorkingFolderSchema).max(100).optional(),
      networkDomains: z.array(NetworkDomainSchema).max(500).optional(),
    })
    .optional(),
  mcp: z.strictObject({ toolShareWarning: z.number().min(0.01).max(1).optional() }).optional(),
  projectMemory: z
    .strictObject({
      enabled: z.boolean().optional(),
      autoAccept: z.boolean().optional(),
      commandTtlDays: z.number().int().min(1).max(3650).optional(),
      maxTokens: z.number().int().min(100).max(8000).optional(),
    })
    .optional(),
  cache: z
    .strictObject({
      ttlMinutes: z.number().min(1).max(1440).optional(),
      warnAboveTokens: z.number().int().min(1000).max(10_000_000).optional(),
    })
    .optional(),
  helpers: z
    .strictObject({
      concurrency: z.number().int().min(1).max(HELPER_CONCURRENCY_MAX).nullable().optional(),
      roles: HelperRolesSchema.optional(),
    })
    .optional(),
});
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;

export function mergeSettings(base: Settings, patch: SettingsPatch): Settings {
  return SettingsSchema.parse({
    ...base,
    ...stripUndefined(patch),
    compaction: { ...base.compaction, ...stripUndefined(patch.compaction ?? {}) },
    cfpm: { ...base.cfpm, ...stripUndefined(patch.cfpm ?? {}) },
    toolOutput: { ...base.toolOutput, ...stripUndefined(patch.toolOutput ?? {}) },
    agent: { ...base.agent, ...stripUndefined(patch.agent ?? {}) },
    sandbox: { ...base.sandbox, ...stripUndefined(patch.sandbox ?? {}) },
    mcp: { ...base.mcp, ...stripUndefined(patch.mcp ?? {}) },
    projectMemory: { ...base.projectMemory, ...stripUndefined(patch.projectMemory ?? {}) },
    cache: { ...base.cache, ...stripUndefined(patch.cache ?? {}) },
    helpers: { ...base.helpers, ...stripUndefined(patch.helpers ?? {}) },
  });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Visibility aliases accepted from the environment. */
export function parseVisibilityAlias(raw: string): VisibilityLevel | null {
  const v = raw.trim().toLowerCase();
  if (['off', 'none', 'disable', 'disabled', '0'].includes(v)) return 'off';
  if (['brief', '1'].includes(v)) return 'brief';
  if (['debug', 'verbose', 'full', '2'].includes(v)) return 'debug';
  return null;
}
