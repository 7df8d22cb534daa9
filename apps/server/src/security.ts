import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// Every security-relevant check of browser mode lives here. The agent can run shell commands,
// so the HTTP surface must only answer this machine's own pages holding the start-up token:
// loopback bind, Host allow-list (DNS rebinding), Origin allow-list (CSRF), token.

export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

export function allowedOrigins(port: number): Set<string> {
  return new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
}

/** 403 reason when the Host or Origin header is foreign, null when acceptable. */
export function checkHostAndOrigin(req: IncomingMessage, port: number): string | null {
  const host = req.headers.host;
  if (!host || !allowedHosts(port).has(host.toLowerCase())) return 'Forbidden host';
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedOrigins(port).has(origin.toLowerCase())) return 'Forbidden origin';
  return null;
}

export function tokensEqual(given: string | null | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token from `Authorization: Bearer …`, or from `?token=` where allowed (event streams). */
export function requestToken(req: IncomingMessage, url: URL, allowQuery: boolean): string | null {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice('Bearer '.length).trim();
  return allowQuery ? url.searchParams.get('token') : null;
}

export const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";
