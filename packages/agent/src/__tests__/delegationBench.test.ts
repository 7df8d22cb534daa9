// The delegation bench's replay (bench/delegation.ts) takes a transcript's reads, and only those.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@threadline/protocol';
import { explorationSteps } from '../../bench/delegation';

const call = (id: string, command: string, thought = `about ${id}`): ChatMessage => ({
  role: 'assistant',
  content: thought,
  tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }],
});
const result = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

describe('explorationSteps', () => {
  it('keeps the reads with their thought and output, and leaves writes, heredocs and runs out', () => {
    const steps = explorationSteps([
      { role: 'user', content: 'fix it' },
      call('a', 'grep -n TIME_ZONE django/db/backends/mysql/operations.py'),
      result('a', '73: field_name'),
      call('b', "cat <<'EOF' > check.py\nprint(1)\nEOF"),
      result('b', ''),
      call('c', 'python check.py'),
      result('c', '1'),
      call('d', 'sed -n 1,40p setup.py > copy.txt'),
      result('d', ''),
      call('e', 'cd django && nl -ba db/utils.py 2>/dev/null'),
      result('e', '1\timport os'),
      call('f', 'ls -la'),
    ]);
    expect(steps).toEqual([
      { thought: 'about a', output: '73: field_name' },
      { thought: 'about e', output: '1\timport os' },
    ]);
  });
});
