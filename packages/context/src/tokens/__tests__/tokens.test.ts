import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@threadline/protocol';
import {
  contextWindowFor,
  countMessageTokens,
  countMessagesTokens,
  countTextTokens,
  DEFAULT_CONTEXT_WINDOW,
  encodingForModel,
  MemoryTokenCache,
  messageTokenKey,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_REQUEST,
} from '..';
import { countMessageTokensUncached } from '../count';
import { encoderFor } from '../encoder';
import { hashParts, hashString } from '../hash';
import { getEncoding } from 'js-tiktoken';

describe('encodings', () => {
  it('maps model families to their BPE and unknown models to chars/4', () => {
    expect(encodingForModel('gpt-4o-2024-08-06')).toBe('o200k_base');
    expect(encodingForModel('openai/gpt-4.1-mini')).toBe('o200k_base');
    expect(encodingForModel('gpt-5')).toBe('o200k_base');
    expect(encodingForModel('o3-mini')).toBe('o200k_base');
    expect(encodingForModel('gpt-4-turbo')).toBe('cl100k_base');
    expect(encodingForModel('gpt-3.5-turbo')).toBe('cl100k_base');
    expect(encodingForModel('llama3.1:8b')).toBe('approx_chars_4');
    expect(encodingForModel('deepseek-chat')).toBe('approx_chars_4');
  });

  it('counts with the real tokenizer (o200k and cl100k differ on the same text)', () => {
    const text = '函数式编程的优点是什么？Explain monads briefly.';
    const o200k = countTextTokens(text, 'gpt-4o');
    const cl100k = countTextTokens(text, 'gpt-4');
    expect(o200k).toBeGreaterThan(5);
    expect(o200k).not.toBe(cl100k);
    expect(countTextTokens('hello world', 'gpt-4o')).toBe(2);
  });

  it('falls back to ceil(chars / 4) for unknown models', () => {
    expect(countTextTokens('x'.repeat(10), 'my-local-model')).toBe(3);
    expect(countTextTokens('', 'my-local-model')).toBe(0);
  });

  it('counts special-token strings as text instead of throwing', () => {
    expect(countTextTokens('a <|endoftext|> b', 'gpt-4o')).toBeGreaterThan(3);
  });

  it('encodes one huge pre-token (a letters-only run) in cuts: fast, exact round trip, count = ids', () => {
    // Whole, one 200 KB pre-token would take the quadratic BPE minutes; this test would time out.
    const blob = 'iVBORwKGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ'.repeat(4_500) + ' end';
    const enc = encoderFor('gpt-4o');
    const ids = enc.encode(blob) ?? [];
    expect(enc.decode(ids)).toBe(blob);
    expect(enc.count(blob)).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(blob.length / 8);
    expect(ids.length).toBeLessThan(blob.length / 2);
    // Base64 with digits is split by the pre-tokenizer: counted and encoded exactly, no cut.
    const b64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ'.repeat(300);
    expect(enc.count(b64)).toBe(getEncoding('o200k_base').encode(b64, [], []).length);
    expect(enc.encode(b64)).toEqual(getEncoding('o200k_base').encode(b64, [], []));
  });

  it('cuts one huge whitespace pre-token too (blank padding in a tool output), as it cuts other runs', () => {
    // Blanks and tabs before a newline are one pre-token; whole, its BPE is quadratic (3,000
    // blanks 0.6 s, 10,000 about 7 s). Over 1,024 characters it is counted and encoded in the
    // 256-character cuts, like a run without spaces: here 697 tokens, where whole it is 702.
    const pad = 'x' + ' \t'.repeat(700) + '\n' + 'y';
    const js = getEncoding('o200k_base');
    const cuts = pad.split(/(\s{256})/).filter((p) => p.length > 0);
    const expected = cuts.reduce((n, p) => n + js.encode(p, [], []).length, 0);
    const enc = encoderFor('gpt-4o');
    const ids = enc.encode(pad) ?? [];
    expect(enc.count(pad)).toBe(expected);
    expect(ids.length).toBe(expected);
    expect(enc.decode(ids)).toBe(pad);
  });
});

describe('message counts', () => {
  it('adds the per-message framing, tool calls and the request priming', () => {
    const plain = countMessageTokens({ role: 'user', content: 'hello world' }, 'gpt-4o', new MemoryTokenCache());
    expect(plain).toBe(TOKENS_PER_MESSAGE + 2);
    const withCall = countMessageTokens(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: '{"command":"ls"}' } }],
      },
      'gpt-4o',
      new MemoryTokenCache(),
    );
    expect(withCall).toBeGreaterThan(TOKENS_PER_MESSAGE + 4);
    expect(countMessagesTokens([{ role: 'user', content: 'hello world' }], 'gpt-4o', new MemoryTokenCache())).toBe(
      plain + TOKENS_PER_REQUEST,
    );
  });

  it('caches by content hash: a second identical message is not recounted', () => {
    const cache = new MemoryTokenCache();
    const msg = { role: 'user' as const, content: 'cache me please' };
    const first = countMessageTokens(msg, 'gpt-4o', cache);
    // Poison the entry: if the cache were bypassed the real count would come back.
    cache.set(messageTokenKey(msg, 'gpt-4o'), 999);
    expect(countMessageTokens({ ...msg }, 'gpt-4o', cache)).toBe(999);
    expect(first).not.toBe(999);
    expect(cache.hits).toBe(1);
  });

  it('hashes a message in parts to the key of its joined fingerprint', () => {
    expect(hashParts(['ab', '', 'c'])).toBe(hashString('abc'));
    const m = {
      role: 'assistant' as const,
      content: 'body',
      name: 'n',
      tool_calls: [{ id: 'c', type: 'function' as const, function: { name: 'shell', arguments: '{"a":1}' } }],
    };
    const joined = 'assistant\u0000body\u0001n\u0003shell\u0004{"a":1}';
    expect(messageTokenKey(m, 'gpt-4o')).toBe(`o200k_base:${hashString(joined)}`);
  });

  it('keys differ by encoding and by content', () => {
    const m = { role: 'user' as const, content: 'x' };
    expect(messageTokenKey(m, 'gpt-4o')).not.toBe(messageTokenKey(m, 'gpt-4'));
    expect(messageTokenKey(m, 'gpt-4o')).not.toBe(messageTokenKey({ ...m, content: 'y' }, 'gpt-4o'));
  });

  it('a message changed in place gets the key of its new fingerprint, not the one kept for it', () => {
    // A fresh copy is never in the per-object memo: its key is the fingerprint's hash itself.
    const fresh = (m: ChatMessage): ChatMessage => structuredClone(m);
    const m: ChatMessage = {
      role: 'assistant',
      content: 'first',
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'shell', arguments: '{"command":"ls"}' } }],
    };
    const keys = new Set<string>();
    const check = (): void => {
      const key = messageTokenKey(m, 'gpt-4o');
      expect(key).toBe(messageTokenKey(fresh(m), 'gpt-4o'));
      // Asked again, the kept hash gives the same key.
      expect(messageTokenKey(m, 'gpt-4o')).toBe(key);
      keys.add(key);
    };
    check();
    m.content = 'second';
    check();
    m.tool_calls![0]!.function.arguments = '{"command":"pwd"}';
    check();
    m.tool_calls!.push({ id: 'd', type: 'function', function: { name: 'shell', arguments: '{}' } });
    check();
    m.name = 'n';
    check();
    m.content = null;
    check();
    expect(keys.size).toBe(6);
    // The same text in a new string (equal by value) keeps the key.
    m.content = ['sec', 'ond'].join('');
    const again = messageTokenKey(m, 'gpt-4o');
    m.content = 'second';
    expect(messageTokenKey(m, 'gpt-4o')).toBe(again);
    // The encoding is part of the key, not of the kept hash.
    expect(messageTokenKey(m, 'gpt-4')).toBe(messageTokenKey(fresh(m), 'gpt-4'));
    expect(messageTokenKey(m, 'gpt-4')).not.toBe(messageTokenKey(m, 'gpt-4o'));
  });

  it('a message whose content is replaced is counted again', () => {
    const cache = new MemoryTokenCache();
    const m: ChatMessage = { role: 'user', content: 'one two three' };
    const before = countMessageTokens(m, 'gpt-4o', cache);
    m.content = 'one two three four five six seven';
    expect(countMessageTokens(m, 'gpt-4o', cache)).toBe(countMessageTokensUncached(m, 'gpt-4o'));
    expect(countMessageTokens(m, 'gpt-4o', cache)).toBeGreaterThan(before);
  });
});

describe('context windows', () => {
  it('resolves families, provider prefixes and unknown models', () => {
    expect(contextWindowFor('gpt-4o-mini')).toBe(128_000);
    expect(contextWindowFor('openai/gpt-4.1')).toBe(1_047_576);
    expect(contextWindowFor('gpt-4')).toBe(8_192);
    expect(contextWindowFor('gpt-4-turbo-preview')).toBe(128_000);
    expect(contextWindowFor('claude-3-5-sonnet')).toBe(200_000);
    expect(contextWindowFor('totally-unknown')).toBe(DEFAULT_CONTEXT_WINDOW);
  });

  it('lets a provider profile override the table', () => {
    expect(contextWindowFor('llama3.1:8b', { 'llama3.1:8b': 8192 })).toBe(8192);
    expect(contextWindowFor('gpt-4o', { 'gpt-4o': 64_000 })).toBe(64_000);
    expect(contextWindowFor('qwen2.5-coder:7b', { qwen: 12_000 })).toBe(12_000);
  });
});
