import type { Engine } from '../ports';

// TEMPORARY: @threadline/context does not export its memory and gate modules from its index yet;
// until it does, memory refresh is a no-op and the gate never rewrites.
export const memoryEngine: Pick<Engine, 'refreshMemory' | 'buildMemoryBlock' | 'applyToolGate'> = {
  refreshMemory: (input) => ({ facts: input.facts, candidates: [], notice: null }),
  buildMemoryBlock: () => null,
  applyToolGate: (input) => ({ args: input.args, notice: null, rewritten: false }),
};
