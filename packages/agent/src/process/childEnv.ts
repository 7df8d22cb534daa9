/**
 * The environment of every child process the app starts (the shell tool, and any helper process
 * added later, e.g. an MCP server): the user's environment minus whatever looks like a secret.
 * A command the model runs (`env`, `printenv`, a script that logs its environment) would
 * otherwise put those values into history, and from there into the next request to the provider.
 */

/** Name fragments that mark a secret, matched against the upper-cased name. */
const SECRET_PARTS = ['KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'CREDENTIAL', '_AUTH', 'PRIVATE', 'COOKIE'];
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
/** A URL with a password in it (postgres://user:pass@host, https://user:token@github.com). */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:[^/@\s]+@/i;

export function isSecretName(name: string): boolean {
  const n = name.toUpperCase();
  return SECRET_PARTS.some((p) => n.includes(p)) || SECRET_PREFIXES.some((p) => n.startsWith(p));
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
    const keep = allowed.has(k.toUpperCase()) || (!isSecretName(k) && !URL_WITH_PASSWORD.test(v));
    if (keep) out[k] = v;
  }
  return out;
}
