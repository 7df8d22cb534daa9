/** Messages a command prints when the sandbox stopped it (a write, a lookup, a connection). */
const SANDBOX_SIGNS: { pattern: RegExp; what: 'write' | 'network' }[] = [
  { pattern: /read-only file system|\bEROFS\b/i, what: 'write' },
  { pattern: /permission denied|operation not permitted|\bEACCES\b|\bEPERM\b/i, what: 'write' },
  {
    pattern:
      /temporary failure in name resolution|could not resolve host|name or service not known|network is unreachable|\bENETUNREACH\b|\bEAI_AGAIN\b|\bENOTFOUND\b|getaddrinfo/i,
    what: 'network',
  },
  { pattern: /connection refused|\bECONNREFUSED\b|couldn't connect to server|failed to connect/i, what: 'network' },
];

/**
 * Whether a failed sandboxed command looks stopped by the sandbox: a non-zero exit and one of
 * the messages above. Only a hint (the model is told it may ask to run the command outside the
 * sandbox; the user decides), so a false positive costs one sentence.
 */
export function sandboxFailure(exitCode: number | null, output: string): 'write' | 'network' | null {
  if (exitCode === 0) return null;
  return SANDBOX_SIGNS.find((s) => s.pattern.test(output))?.what ?? null;
}

/** What the model reads under the output of such a command. */
export function sandboxFailureHint(what: 'write' | 'network', network: boolean): string {
  const cause =
    what === 'network'
      ? network
        ? 'a network error (the network is on for this session, so it may not be the sandbox)'
        : 'a network error: commands in this session run without network access'
      : 'a write the sandbox refused: commands may write only the working folder and /tmp, and .git/config, .git/hooks and other protected paths stay read-only';
  return `[sandbox] This command ran in Threadline's OS sandbox and failed with ${cause}. If the task needs it, call shell again with the same command and "sandbox": false; the user is then asked to approve running it outside the sandbox.`;
}
