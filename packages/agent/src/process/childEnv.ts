/**
 * The environment of the child processes the app starts for commands (the shell tool): the
 * user's environment minus whatever looks like a secret. MCP servers get an allow-list instead
 * (mcpEnv below).
 * A command the model runs (`env`, `printenv`, a script that logs its environment) would
 * otherwise put those values into history, and from there into the next request to the provider.
 */

/** Name fragments that mark a secret, matched against the upper-cased name. */
const SECRET_PARTS = ['KEY', 'TOKEN', 'SECRET', 'PASS', 'CREDENTIAL', '_AUTH', 'PRIVATE', 'COOKIE', 'WEBHOOK'];
/** Whole families: the app's own settings, and cloud providers' credentials and sessions. */
const SECRET_PREFIXES = [
  'THREADLINE_',
  'AGIME_',
  'AWS_',
  'AZURE_',
  'ARM_CLIENT_',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GOOGLE_CLOUD_',
  'GCLOUD_',
  'CLOUDSDK_AUTH',
  'DIGITALOCEAN_',
  'HCLOUD_',
  'VAULT_',
];
/** Name endings that mark a secret: GITHUB_PAT, MYSQL_PWD, SENTRY_DSN. */
const SECRET_SUFFIXES = ['_PAT', 'PWD', '_DSN'];
/** Ordinary names caught by the patterns above: the shell's current and previous folder. */
const NOT_SECRET = new Set(['PWD', 'OLDPWD']);
/** A URL with a password in it (postgres://user:pass@host, https://user:token@github.com), anywhere in the value. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:[^/@\s]+@/i;
/** A connection string with a password (Server=…;Password=…, Data Source=…;pwd=…). */
const CONNECTION_PASSWORD = /(^|;)\s*(password|pwd)\s*=/i;

export function isSecretName(name: string): boolean {
  const n = name.toUpperCase();
  if (NOT_SECRET.has(n)) return false;
  return (
    SECRET_PARTS.some((p) => n.includes(p)) ||
    SECRET_PREFIXES.some((p) => n.startsWith(p)) ||
    SECRET_SUFFIXES.some((p) => n.endsWith(p))
  );
}

/** A value that carries a credential whatever its name: a URL with a password, a connection string. */
export function isSecretValue(value: string): boolean {
  return URL_WITH_PASSWORD.test(value) || CONNECTION_PASSWORD.test(value);
}

/**
 * `env` without secret-looking variables. `passThrough` names (Settings → agent.envPassthrough,
 * compared case-insensitively) are kept anyway: the user's say-so for a tool that needs one.
 */
export function childEnv(env: NodeJS.ProcessEnv = process.env, passThrough: readonly string[] = []): NodeJS.ProcessEnv {
  const allowed = new Set(passThrough.map((n) => n.toUpperCase()));
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    const keep = allowed.has(k.toUpperCase()) || (!isSecretName(k) && !isSecretValue(v));
    if (keep) out[k] = v;
  }
  return out;
}

/**
 * Variables that name a door out of the sandbox: the session bus, the display servers, the ssh and
 * gpg agents, the user's runtime folder (where their sockets live), container engines, the
 * terminal multiplexers. A sandboxed command or MCP server never gets them (the sockets they name
 * are out of reach anyway: seccomp refuses unix sockets, and the folders are hidden).
 */
export const SOCKET_ENV: readonly string[] = Object.freeze([
  'DBUS_SESSION_BUS_ADDRESS',
  'DBUS_SYSTEM_BUS_ADDRESS',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XAUTHORITY',
  'SESSION_MANAGER',
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'GPG_AGENT_INFO',
  'GNUPGHOME',
  'XDG_RUNTIME_DIR',
  'DOCKER_HOST',
  'CONTAINER_HOST',
  'PULSE_SERVER',
  'KRB5CCNAME',
  'TMUX',
  'TMUX_PANE',
  'STY',
  'KITTY_LISTEN_ON',
  'VSCODE_IPC_HOOK_CLI',
  'VSCODE_GIT_IPC_HANDLE',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'BASH_ENV',
  'ENV',
]);

/** `env` without the variables that name a socket outside the sandbox (SOCKET_ENV). */
export function withoutSocketEnv<T extends Record<string, string | undefined>>(env: T): T {
  const drop = new Set(SOCKET_ENV);
  return Object.fromEntries(Object.entries(env).filter(([k]) => !drop.has(k.toUpperCase()))) as T;
}

/**
 * What every MCP stdio server gets of the app's environment: what a program needs to find itself,
 * the user's locale and a terminal. Nothing else unless the user names it for that server.
 */
export const MCP_CORE_ENV: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TMPDIR',
  'TEMP',
  'TMP',
  'TZ',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  // Windows: what node, python and the system need to start at all
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'HOMEDRIVE',
  'HOMEPATH',
]);

/**
 * The environment of an MCP stdio server: an allow-list, not a filter. The core set (and `LC_*`)
 * plus `allow`, the names the user added for this server (compared case-insensitively); a core
 * value that carries a credential (a URL with a password) stays out too, a named one does not.
 */
export function mcpEnv(env: NodeJS.ProcessEnv = process.env, allow: readonly string[] = []): Record<string, string> {
  const core = new Set(MCP_CORE_ENV);
  const named = new Set(allow.map((n) => n.toUpperCase()));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    const n = k.toUpperCase();
    if (named.has(n) || ((core.has(n) || n.startsWith('LC_')) && !isSecretValue(v))) out[k] = v;
  }
  return out;
}
