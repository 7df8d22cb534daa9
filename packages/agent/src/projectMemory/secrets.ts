/**
 * Project memory never holds a secret: a fact whose text looks like a credential is not stored
 * (from a session, typed by the user or imported) and never injected. The tools' rules, in one
 * place for project memory: a value `childEnv` keeps from commands (a URL with a password, a
 * connection string), what `redactCredentials` hides from the model (tokens in remote URLs,
 * git's extraheader), a `NAME=value` whose name `childEnv` treats as a secret, and the shapes of
 * well-known tokens and keys.
 */
import { isSecretName, isSecretValue } from '../process/childEnv';
import { redactCredentials } from '../workspace/redact';

/** Tokens by their published prefixes (OpenAI, Anthropic, GitHub, GitLab, Slack, AWS, Google, npm), JWTs, private keys. */
const TOKEN_SHAPES: RegExp[] = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/,
  /\bglpat-[A-Za-z0-9_-]{20,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
  /\bAIza[0-9A-Za-z_-]{35}\b/,
  /\bya29\.[A-Za-z0-9_-]{20,}/,
  /\bnpm_[A-Za-z0-9]{36}\b/,
  /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/** `API_KEY=abc`, `token: "x9…"`, `--password hunter2`: a secret's name with a value after it. */
const ASSIGNMENTS: RegExp[] = [
  /(?:^|[\s;&|"'`({[,])([A-Za-z_][A-Za-z0-9_.-]{1,80})\s*=\s*["']?([^\s"'`;&|,)}\]]{4,})/g,
  // After a colon, only a value that is no word of prose (it holds a digit).
  /(?:^|[\s;&|"'`({[,])([A-Za-z_][A-Za-z0-9_.-]{1,80})\s*:\s*["']?((?=[^\s"'`]*\d)[^\s"'`;&|,)}\]]{8,})/g,
  /(?:^|\s)--([A-Za-z][A-Za-z0-9-]{1,80})\s+["']?([^\s"'`;&|]{4,})/g,
];

/** A long run of letters and digits of both cases and digits (a key pasted as is), not a path or a hash. */
const OPAQUE =
  /(?<![\w/.-])(?=[A-Za-z0-9_+=-]*[A-Z])(?=[A-Za-z0-9_+=-]*[a-z])(?=[A-Za-z0-9_+=-]*\d)[A-Za-z0-9_+=-]{32,}(?![\w/.-])/;

export function credentialLike(text: string): boolean {
  if (isSecretValue(text) || redactCredentials(text) !== text) return true;
  if (TOKEN_SHAPES.some((re) => re.test(text)) || OPAQUE.test(text)) return true;
  for (const re of ASSIGNMENTS)
    for (const m of text.matchAll(re)) {
      const name = m[1]!.replace(/[.-]/g, '_');
      // A reference (`$TOKEN`, `${{ secrets.X }}`, `<your-key>`) names a secret without holding one.
      if (isSecretName(name) && !/^(?:\$|<|\*+$|x+$)/i.test(m[2]!)) return true;
    }
  return false;
}
