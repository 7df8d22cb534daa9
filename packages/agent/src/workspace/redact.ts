/**
 * Credentials written into text the model would read: a remote URL with a password or token
 * (`https://user:ghp_…@github.com`, as `git clone` with a token leaves in `.git/config` and
 * `git remote -v` prints) and git's `http.extraheader` (where CI checkouts keep their token).
 * The tool result (what the model, the provider and the card get) says `user:***@host` instead.
 */
const URL_CREDENTIAL = /\b([a-z][a-z0-9+.-]*:\/\/)([^/@\s:'"]*):([^/@\s'"]+)@/gi;
/** A token alone as the user name of an http(s) URL: `https://ghp_…@github.com` (20+ characters). */
const URL_TOKEN_USER = /\b(https?:\/\/)([A-Za-z0-9_.~-]{20,})@/g;
const EXTRA_HEADER = /^(\s*extraheader\s*=\s*)(.+)$/gim;

export function redactCredentials(text: string): string {
  return text.replace(URL_CREDENTIAL, '$1$2:***@').replace(URL_TOKEN_USER, '$1***@').replace(EXTRA_HEADER, '$1***');
}

/** Files under a `.git` folder (config, modules/…/config, FETCH_HEAD) are shown redacted. */
export function isGitFile(p: string): boolean {
  return p.split(/[\\/]+/).includes('.git');
}
