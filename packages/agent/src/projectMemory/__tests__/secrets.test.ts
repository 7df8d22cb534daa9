import { describe, expect, it } from 'vitest';
import { credentialLike } from '../secrets';

describe('credentialLike (project memory never keeps a secret)', () => {
  it.each([
    'git push https://me:ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8@github.com/me/p.git',
    'export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx1234',
    'DATABASE_URL=postgres://app:hunter22@db:5432/app pnpm test',
    'Server=db;User Id=sa;Password=Hunter2!;',
    'curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ"',
    'pnpm publish --token npm_abcdefghijklmnopqrstuvwxyz0123456789',
    'aws configure set aws_access_key_id AKIAABCDEFGHIJKLMNOP',
    'mysql --password hunter2 -u root',
    'TOKEN: x9f8e7d6c5b4a3',
    '-----BEGIN OPENSSH PRIVATE KEY-----',
    'the key is Zk3x9QpL2mN8vR4tY7wA1sD6fG0hJ5kC',
  ])('%s', (text) => expect(credentialLike(text)).toBe(true));

  it.each([
    'pnpm test',
    'src/app.ts',
    'Always use pnpm, never npm.',
    "Don't commit the password file.",
    'Keep the API key in .env, never in the code.',
    'export GITHUB_TOKEN=$GH_TOKEN',
    'git checkout 3f9a1c2e4b5d6f708192a3b4c5d6e7f8091a2b3c',
    'python -m pytest tests/test_models.py -k "not slow"',
    'Note: the build needs Node 22.',
  ])('%s is no credential', (text) => expect(credentialLike(text)).toBe(false));
});
