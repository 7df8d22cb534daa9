// Preloaded into Electron's install script by `pnpm start`: a failed download prints its error's
// first line ("Error: getaddrinfo ENOTFOUND github.com"), not the stack; start.ts explains the rest.
const original = console.error;
console.error = (...args) =>
  original(...args.map((a) => (typeof a === 'string' && /\n\s+at /.test(a) ? a.split('\n')[0] : a)));
