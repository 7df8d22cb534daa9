import { describe, expect, it } from 'vitest';
import { buildSummaryRequestMessages, extractiveSummary, SUMMARY_SYSTEM_PROMPT, continuationInstruction } from '../..';

describe('summary prompt and continuation', () => {
  it('asks for goals, decisions, files, commands, open items and user constraints', () => {
    for (const s of ['Goals', 'Decisions', 'Files touched', 'Commands that worked', 'Open items', 'User constraints']) {
      expect(SUMMARY_SYSTEM_PROMPT).toContain(s);
    }
  });

  it('renders the transcript, earlier summaries and the user instructions into the request', () => {
    const msgs = buildSummaryRequestMessages({
      messages: [
        { role: 'user', content: 'fix it' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'shell', arguments: '{"command":"pytest"}' } }],
        },
        { role: 'tool', content: 'ok', tool_call_id: 'c' },
      ],
      previousSummaries: ['EARLIER'],
      instructions: 'the auth module',
      detail: 'short',
      maxSummaryTokens: 700,
      toolOutputsRemovedPercent: 0,
    });
    expect(msgs[0]!.content).toBe(SUMMARY_SYSTEM_PROMPT);
    expect(msgs[1]!.content).toContain('<earlier_summary>\nEARLIER');
    expect(msgs[1]!.content).toContain('[tool call shell] {"command":"pytest"}');
    expect(msgs[1]!.content).toContain('focus on: the auth module');
    expect(msgs[1]!.content).toContain('700 tokens');
  });

  it('the continuation tells the model it was compacted and how to go on', () => {
    const t = continuationInstruction({ hiddenCount: 12, strategy: 'legacy_segmented', hasSummary: true });
    expect(t).toContain('12 earlier messages were compacted');
    expect(t).toContain('read_tool_output');
    expect(t).toMatch(/Continue the task/);
  });
});

describe('extractiveSummary', () => {
  it('lists requests, files and commands without a model', () => {
    const s = extractiveSummary([
      { role: 'user', content: 'Rename the helper in src/utils/strings.py' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c',
            type: 'function',
            function: { name: 'shell', arguments: '{"command":"sed -i s/a/b/ src/utils/strings.py"}' },
          },
        ],
      },
      { role: 'tool', content: 'exit code: 0', tool_call_id: 'c' },
      { role: 'assistant', content: 'Renamed; tests still to run.' },
    ]);
    expect(s).toContain('Rename the helper');
    expect(s).toContain('src/utils/strings.py');
    expect(s).toContain('sed -i s/a/b/ src/utils/strings.py');
    expect(s).toContain('tests still to run');
  });
});
