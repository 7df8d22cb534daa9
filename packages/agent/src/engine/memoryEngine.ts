import { applyToolGate, buildMemoryBlock, formatRuntimeNotice, refreshMemory } from '@threadline/context';
import type { Engine } from '../ports';

/** The CFPM half of the Engine port: memory refresh, injection block and the pre-tool gate. */
export const memoryEngine: Pick<Engine, 'refreshMemory' | 'buildMemoryBlock' | 'applyToolGate'> = {
  refreshMemory: (input) => {
    const r = refreshMemory({
      sessionId: input.sessionId,
      messages: input.messages,
      recent: input.recent,
      facts: input.facts,
      candidates: input.candidates,
      now: input.now,
      newId: input.newId,
    });
    return { facts: r.facts, candidates: r.candidates, notice: formatRuntimeNotice(r, input.visibility) };
  },
  buildMemoryBlock: (facts) => buildMemoryBlock(facts),
  applyToolGate: (input) => {
    const r = applyToolGate({
      toolName: input.toolName,
      args: input.args,
      facts: input.facts,
      lastUserMessage: input.latestUserText,
      // The runtime only calls the gate under cfpm_memory_v1 with the gate on (turn/gate.ts).
      strategy: 'cfpm_memory_v1',
      enabled: true,
      visibility: input.visibility,
      fileExists: input.fileExists,
      platform: input.platform === 'win32' ? 'win32' : 'posix',
    });
    return { args: r.args, notice: r.notice, rewritten: r.rewritten };
  },
};
