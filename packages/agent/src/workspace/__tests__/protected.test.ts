// The protected-path list, MCP launch targets, and the child environments' secret patterns: pure
// functions over strings (the integration tests in __tests__/injection.test.ts drive them for real).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, isSecretName, isSecretValue, mcpEnv } from '../../process/childEnv';
import { launchTargets, protectedReason, runsLaterRule } from '../protected';
import { redactCredentials } from '../redact';

const W = '/home/u/work';

describe('protectedReason', () => {
  it('names why, at any depth, and leaves ordinary files alone', () => {
    const at = (rel: string) => protectedReason(path.join(W, rel), 'linux');
    expect(at('.git/hooks/pre-commit')).toBe('git');
    expect(at('.git/config')).toBe('git');
    expect(at('.git/info/attributes')).toBe('git');
    expect(at('vendor/lib/.git/config')).toBe('git');
    expect(at('.git')).toBe('git');
    expect(at('.github/workflows/ci.yml')).toBe('ci_workflow');
    expect(at('.github/ISSUE_TEMPLATE.md')).toBeNull();
    expect(at('.gitignore')).toBeNull();
    expect(at('packages/a/package.json')).toBe('package_json');
    expect(at('.yarnrc.yaml')).toBe('package_manager_config');
    expect(at('node_modules/.bin/eslint')).toBe('node_bin');
    expect(at('node_modules/left-pad/index.js')).toBeNull();
    expect(at('src/makefile.ts')).toBeNull();
    expect(at('src/index.ts')).toBeNull();
  });

  it('folds case where the file system does', () => {
    expect(protectedReason(path.join(W, '.GIT/hooks/x'), 'darwin')).toBe('git');
    expect(protectedReason(path.join(W, '.GIT/hooks/x'), 'linux')).toBeNull();
    expect(protectedReason(path.join(W, 'PACKAGE.JSON'), 'linux')).toBe('package_json');
  });

  it('counts the files a launcher executes, and what lies under a launched folder', () => {
    const launch = launchTargets('python3', ['-m', 'mcp_time_srv.main', '--tz', 'UTC'], W);
    expect(launch).toEqual([path.join(W, 'mcp_time_srv.py'), path.join(W, 'mcp_time_srv')]);
    expect(protectedReason(path.join(W, 'mcp_time_srv', '__init__.py'), 'linux', launch)).toBe('mcp_launch');
    expect(protectedReason(path.join(W, 'mcp_time_srv.py'), 'linux', launch)).toBe('mcp_launch');
    expect(protectedReason(path.join(W, 'other.py'), 'linux', launch)).toBeNull();
    expect(launchTargets('node', ['dist/server.js', '--port', '1'], W)).toEqual([path.join(W, 'dist/server.js')]);
    expect(launchTargets('./run.sh', [], W)).toEqual([path.join(W, 'run.sh')]);
    expect(launchTargets('npx', ['-y', '@scope/server'], W)).toEqual([path.join(W, 'node_modules')]);
    expect(launchTargets('pnpm', ['dlx', 'server'], W)).toEqual([path.join(W, 'node_modules')]);
    expect(launchTargets('uvx', ['mcp-server-time'], W)).toEqual([]);
  });
});

describe('secrets in child environments', () => {
  it('names: *_PAT, *PASS*, *PWD but not PWD/OLDPWD, *_DSN, *WEBHOOK*', () => {
    for (const n of ['GITHUB_PAT', 'DB_PASS', 'PGPASSWORD', 'MYSQL_PWD', 'SENTRY_DSN', 'SLACK_WEBHOOK_URL', 'api_key'])
      expect(isSecretName(n), n).toBe(true);
    for (const n of ['PWD', 'OLDPWD', 'PATH', 'HOME', 'LANG', 'TERM', 'EDITOR']) expect(isSecretName(n), n).toBe(false);
  });

  it('values: connection strings and URLs with a password, anywhere in the value', () => {
    expect(isSecretValue('Server=db;User Id=sa;Password=x;')).toBe(true);
    expect(isSecretValue('Driver={x};Server=db;pwd=x')).toBe(true);
    expect(isSecretValue('postgres://app:s3cret@db:5432/app')).toBe(true);
    expect(isSecretValue('--url=https://u:tok@host/x')).toBe(true);
    expect(isSecretValue('https://example.com/a:b')).toBe(false);
    expect(isSecretValue('/usr/bin:/bin')).toBe(false);
  });

  it('the shell: everything but secrets; MCP: the core set, LC_*, and the names allowed', () => {
    const env = { PATH: '/bin', PWD: '/w', HOME: '/h', LC_ALL: 'C', EDITOR: 'vi', DB_PASS: 'x', EXTRA: 'e' };
    expect(childEnv(env)).toEqual({ PATH: '/bin', PWD: '/w', HOME: '/h', LC_ALL: 'C', EDITOR: 'vi', EXTRA: 'e' });
    expect(mcpEnv(env)).toEqual({ PATH: '/bin', HOME: '/h', LC_ALL: 'C' });
    expect(mcpEnv(env, ['extra', 'DB_PASS'])).toEqual({
      PATH: '/bin',
      HOME: '/h',
      LC_ALL: 'C',
      EXTRA: 'e',
      DB_PASS: 'x',
    });
  });
});

describe('redactCredentials', () => {
  it('hides the password of a URL, a token used as the user, and git extra headers', () => {
    const text = [
      '\turl = https://user:ghp_abc123@github.com/acme/app.git',
      'origin\thttps://ghp_0123456789abcdefghijklmnop@github.com/a/b (fetch)',
      '\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=',
      '\turl = git@github.com:acme/app.git',
    ].join('\n');
    expect(redactCredentials(text)).toBe(
      [
        '\turl = https://user:***@github.com/acme/app.git',
        'origin\thttps://***@github.com/a/b (fetch)',
        '\textraheader = ***',
        '\turl = git@github.com:acme/app.git',
      ].join('\n'),
    );
  });
});

describe('runsLaterRule', () => {
  it('gives the rule and the part of the path it holds as one, at any depth', () => {
    const at = (rel: string) => {
      const hit = runsLaterRule(rel, 'linux');
      return hit && { reason: hit.rule.reason, unit: hit.unit, held: hit.rule.held, readOnly: hit.rule.readOnly };
    };
    expect(at('sub/.vscode/tasks.json')).toEqual({
      reason: 'editor_tasks',
      unit: 'sub/.vscode',
      held: 'now',
      readOnly: true,
    });
    expect(at('a/.github/workflows/ci.yml')).toMatchObject({ reason: 'ci_workflow', unit: 'a/.github/workflows' });
    expect(at('tools/.envrc')).toMatchObject({ reason: 'envrc', unit: 'tools/.envrc', held: 'now' });
    expect(at('docs/AGENTS.md')).toMatchObject({ reason: 'agent_config', held: 'now' });
    expect(at('.mcp.json')).toMatchObject({ reason: 'mcp_config' });
    expect(at('.pre-commit-config.yaml')).toMatchObject({ reason: 'hook_manager' });
    expect(at('pkg/package.json')).toMatchObject({ reason: 'package_json', held: 'turn', readOnly: true });
    expect(at('node_modules/.bin/vitest')).toMatchObject({
      reason: 'node_bin',
      unit: 'node_modules/.bin',
      held: 'turn',
      readOnly: false,
    });
    expect(at('tests/conftest.py')).toMatchObject({ reason: 'test_plugin', held: 'turn' });
    expect(at('.venv/lib/python3.12/site-packages/x.pth')).toMatchObject({ reason: 'python_startup', held: 'turn' });
    expect(at('models/resnet.pth')).toBeNull();
    expect(at('my.code-workspace')).toMatchObject({ reason: 'editor_tasks' });
    expect(at('.code-workspace')).toBeNull();
    expect(at('src/index.ts')).toBeNull();
  });

  it('asks for a file tool only where the rule says so', () => {
    expect(protectedReason(path.join(W, 'tests/conftest.py'), 'linux')).toBeNull();
    expect(protectedReason(path.join(W, 'CLAUDE.md'), 'linux')).toBe('agent_config');
    expect(protectedReason(path.join(W, '.claude/settings.json'), 'linux')).toBe('agent_config');
  });
});
