// The machine's certificate and proxy settings, which a stdio server needs to reach anything
// behind a company proxy or TLS inspection (npx's own download first: without them it fails with
// SELF_SIGNED_CERT_IN_CHAIN). Passed to every stdio server besides the core allow-list of
// process/childEnv.ts; a value that carries a password (a proxy URL with credentials) stays out,
// as a core value does: name it under the server's "Variables it may see" to give it.
import { isSecretValue } from '../process/childEnv';

/** The names, as the tools that read them spell them (proxies in both cases). */
export const MACHINE_NETWORK_ENV: readonly string[] = Object.freeze([
  'NODE_EXTRA_CA_CERTS',
  'NODE_USE_SYSTEM_CA',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'PIP_CERT',
  'GIT_SSL_CAINFO',
  'UV_NATIVE_TLS',
  'npm_config_cafile',
  'NPM_CONFIG_CAFILE',
  'npm_config_proxy',
  'npm_config_https_proxy',
  'npm_config_noproxy',
  'npm_config_registry',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
]);

/** Those of `env` that are set, without a value that carries a credential. */
export function machineNetworkEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of MACHINE_NETWORK_ENV) {
    const v = env[name];
    if (v !== undefined && !isSecretValue(v)) out[name] = v;
  }
  return out;
}
