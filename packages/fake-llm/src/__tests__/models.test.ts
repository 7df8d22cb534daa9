import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../index';

let llm: FakeLlm;
let client: OpenAI;
beforeAll(async () => {
  llm = await startFakeLlm({ models: ['vision-1', 'text-1'], noVisionModels: ['text-1'] });
  client = new OpenAI({ baseURL: llm.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => llm.close());

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const withImage = (model: string) =>
  client.chat.completions.create({
    model,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
        ],
      },
    ],
  });

describe('models and images', () => {
  it('lists the configured models, and others after setModels or /_fake/config', async () => {
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['vision-1', 'text-1']);
    llm.setModels(['a', 'b', 'c']);
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['a', 'b', 'c']);
    const res = await fetch(llm.url.replace('/v1', '/_fake/config'), {
      method: 'POST',
      body: JSON.stringify({ models: ['vision-1', 'text-1'] }),
    });
    expect(res.status).toBe(200);
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['vision-1', 'text-1']);
  });

  it('records the image parts of a request, decoded', async () => {
    const r = await withImage('vision-1');
    expect(r.choices[0]!.message.content).toBe('You said: what is this?');
    const rec = llm.chatRequests().at(-1)!;
    expect(rec.images).toEqual([
      { message: 0, mime: 'image/png', bytes: png.length, sha256: createHash('sha256').update(png).digest('hex') },
    ]);
  });

  it('refuses images for a text-only model as OpenAI does', async () => {
    await expect(withImage('text-1')).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/image_url/),
    });
    const ok = await client.chat.completions.create({ model: 'text-1', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.choices[0]!.message.content).toBe('You said: hi');
  });
});
