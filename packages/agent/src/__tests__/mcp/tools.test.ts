import { describe, expect, it } from 'vitest';
import { modelToolName, TOOL_NAME_MAX, toToolResult } from '../../mcp/tools';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe('modelToolName', () => {
  it('is <server>__<tool> when both are already valid', () => {
    expect(modelToolName('everything', 'get-tiny-image')).toBe('everything__get-tiny-image');
  });

  it('keeps to the provider charset and length, and names that had to change never collide', () => {
    const names = [
      modelToolName('my server', 'read.file'),
      modelToolName('my_server', 'read_file'),
      modelToolName('my server', 'read file'),
      modelToolName('a'.repeat(80), 'b'.repeat(80)),
      modelToolName('a'.repeat(80), `${'b'.repeat(79)}c`),
      modelToolName('文件', '读取'),
      modelToolName('srv', 'x__y'),
    ];
    for (const n of names) {
      expect(n).toMatch(VALID);
      expect(n.length).toBeLessThanOrEqual(TOOL_NAME_MAX);
      expect(n.split('__')).toHaveLength(2);
    }
    expect(new Set(names).size).toBe(names.length);
    // Deterministic: the same tool gets the same name on every start.
    expect(modelToolName('my server', 'read.file')).toBe(names[0]);
  });
});

describe('toToolResult', () => {
  const src = { serverName: 'srv' };
  it('text for the model, placeholders for binary content, resources as their text', () => {
    const r = toToolResult(src, 't', {
      content: [
        { type: 'text', text: 'one' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside a' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/zip' } },
        { type: 'resource_link', name: 'readme', uri: 'file:///README.md' },
      ],
    });
    expect(r).toMatchObject({ ok: true, meta: { mcp: { server: 'srv', tool: 't' } } });
    expect(r.content).toBe(
      'one\n[audio audio/wav, 1 KB]\ninside a\n[resource file:///b.bin (application/zip)]\n[resource link readme: file:///README.md]',
    );
  });

  it('structured content reaches the model when the server sent no text, and the card either way', () => {
    const r = toToolResult(src, 't', { content: [], structuredContent: { sum: 3 } });
    expect(r.content).toBe('{\n  "sum": 3\n}');
    expect((r.meta?.mcp as { structured: unknown }).structured).toEqual({ sum: 3 });
  });

  it('an error result is an error the model can read', () => {
    expect(toToolResult(src, 't', { content: [{ type: 'text', text: 'no such repo' }], isError: true })).toMatchObject({
      ok: false,
      content: 'Error: no such repo',
    });
    expect(toToolResult(src, 't', { content: [] })).toMatchObject({ ok: true, content: '(no output)' });
  });
});
