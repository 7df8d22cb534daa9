import type { ChatMessage } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { extractDrafts } from '../extract';
import { refreshMemory } from '../refresh';

function mcpCall(id: string, name: string, args: Record<string, unknown>, result: string): ChatMessage[] {
  return [
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    },
    { role: 'tool', tool_call_id: id, content: result },
  ];
}

describe('MCP calls in CFPM memory', () => {
  it('records a succeeded MCP call as a confirmed verified action; errors, denials and aborts are not', () => {
    const drafts = extractDrafts([
      ...mcpCall('a', 'github__create_issue', { repo: 'acme/app', title: 'Crash on start' }, 'Created issue #12'),
      ...mcpCall('b', 'github__create_issue', { repo: 'acme/app' }, 'Error: title is required'),
      ...mcpCall('c', 'fs__write_file', { path: 'x' }, 'denied: the user did not allow this tool call'),
      ...mcpCall('d', 'db__run_query', { sql: 'select 1' }, 'aborted: the user cancelled the turn'),
    ]).filter((d) => d.category === 'verified_action');
    expect(drafts.map((d) => [d.content, d.confirmed])).toEqual([
      ['called `github__create_issue` {"repo":"acme/app","title":"Crash on start"} (ok)', true],
    ]);
  });

  it('an MCP tool named like a runner is not a shell command unless it has a `command` argument', () => {
    const drafts = extractDrafts([
      ...mcpCall(
        'a',
        'everything__trigger-long-running-operation',
        { duration: 1 },
        'Long running operation completed.',
      ),
      ...mcpCall('b', 'dc__execute_command', { command: 'pytest -q' }, 'Exit code: 0'),
    ]).filter((d) => d.category === 'verified_action');
    expect(drafts.map((d) => d.content)).toEqual([
      'called `everything__trigger-long-running-operation` {"duration":1} (ok)',
      'ran `pytest -q` (exit 0)',
    ]);
  });

  it('the fact survives a refresh as an active memory fact', () => {
    const r = refreshMemory({
      sessionId: 's',
      messages: mcpCall('a', 'tiny__add', { a: 2, b: 40 }, 'The sum is 42'),
      facts: [],
      now: 1,
      newId: (() => {
        let n = 0;
        return () => `f${++n}`;
      })(),
    });
    expect(r.facts.map((f) => [f.category, f.content, f.status])).toContainEqual([
      'verified_action',
      'called `tiny__add` {"a":2,"b":40} (ok)',
      'active',
    ]);
  });
});
