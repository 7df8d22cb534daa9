/**
 * What a command does, by its words: `pnpm test` tests, `cargo build` builds, `npm run dev` runs
 * the project. Only commands a later session would run again get a purpose; a one-off (`python
 * reproduce.py`, `echo`, `ls`) gets none and is never proposed for project memory.
 */
import type { CommandPurpose } from '@threadline/protocol';

const PM = String.raw`(?:npm|pnpm|yarn|bun)`;
/** `pnpm test`, `npm run test:unit`, `yarn test --watch=false`… */
const script = (names: string): RegExp => new RegExp(String.raw`^${PM}\s+(?:run\s+)?(?:${names})(?::[\w:-]+)?(?:\s|$)`);

/** In order: the first that matches names the purpose (`tsc --noEmit` typechecks before `tsc` builds). */
const PURPOSES: ReadonlyArray<readonly [CommandPurpose, readonly RegExp[]]> = [
  [
    'test',
    [
      script('test|tests|e2e|spec'),
      /^(?:npx\s+|pnpm\s+exec\s+|bunx\s+)?(?:vitest|jest|mocha|ava|playwright\s+test|cypress\s+run)\b/,
      /^(?:python[\d.]*\s+-m\s+)?(?:pytest|py\.test|unittest|tox|nox)\b/,
      /^(?:\.\/)?(?:runtests\.py|tests?\/runtests\.py|manage\.py\s+test)\b/,
      /^python[\d.]*\s+(?:\.\/)?(?:tests?\/)?runtests\.py\b/,
      /^python[\d.]*\s+manage\.py\s+test\b/,
      /^(?:go\s+test|cargo\s+(?:test|nextest)|ctest|dotnet\s+test|swift\s+test|deno\s+test|mix\s+test|rspec|bundle\s+exec\s+rspec|phpunit|\.\/vendor\/bin\/phpunit)\b/,
      /^(?:mvn|\.\/mvnw)\s+(?:-\S+\s+)*(?:test|verify)\b/,
      /^(?:gradle|\.\/gradlew)\s+(?:-\S+\s+)*(?:test|check)\b/,
      /^make\s+(?:test|tests|check)\b/,
    ],
  ],
  [
    'typecheck',
    [
      script('typecheck|type-check|types|tsc'),
      /^(?:npx\s+|pnpm\s+exec\s+)?tsc\b.*--noEmit\b/,
      /^(?:npx\s+|pnpm\s+exec\s+)?tsc\s+-b\b/,
      /^(?:python[\d.]*\s+-m\s+)?(?:mypy|pyright)\b/,
      /^cargo\s+check\b/,
    ],
  ],
  [
    'lint',
    [
      script('lint|eslint'),
      /^(?:npx\s+|pnpm\s+exec\s+)?(?:eslint|biome\s+(?:lint|check)|oxlint)\b/,
      /^(?:python[\d.]*\s+-m\s+)?(?:ruff\s+check|ruff|flake8|pylint)\b/,
      /^(?:cargo\s+clippy|golangci-lint\s+run|go\s+vet)\b/,
      /^make\s+lint\b/,
    ],
  ],
  [
    'format',
    [
      script('format|fmt|prettier'),
      /^(?:npx\s+|pnpm\s+exec\s+)?prettier\b/,
      /^(?:python[\d.]*\s+-m\s+)?(?:black|isort|ruff\s+format)\b/,
      /^(?:cargo\s+fmt|gofmt|go\s+fmt|rustfmt)\b/,
      /^make\s+(?:format|fmt)\b/,
    ],
  ],
  [
    'build',
    [
      script('build|compile|dist|bundle'),
      /^(?:cargo\s+build|go\s+build|dotnet\s+build|swift\s+build|cmake\s+--build|ninja|zig\s+build)\b/,
      /^(?:mvn|\.\/mvnw)\s+(?:-\S+\s+)*(?:package|compile|install)\b/,
      /^(?:gradle|\.\/gradlew)\s+(?:-\S+\s+)*(?:build|assemble)\b/,
      /^make(?:\s+(?:-j\s*\d*\s*)?(?:all|build|release|debug))?\s*$/,
      /^(?:npx\s+|pnpm\s+exec\s+)?(?:vite\s+build|tsc|webpack|rollup|esbuild|electron-vite\s+build)\b/,
      /^python[\d.]*\s+(?:-m\s+build|setup\.py\s+(?:build|build_ext|develop))\b/,
    ],
  ],
  [
    'install',
    [
      new RegExp(String.raw`^${PM}\s+(?:install|i|ci)(?:\s+--?[\w-]+(?:=\S+)?)*\s*$`),
      /^(?:python[\d.]*\s+-m\s+)?pip3?\s+install\s+(?:-e\s+\.|-r\s+\S+|--editable\s+\.|\.(?:\[[\w,-]+\])?)\s*$/,
      /^(?:poetry|pipenv|uv)\s+(?:install|sync)\b/,
      /^(?:bundle\s+install|composer\s+install|go\s+mod\s+download|cargo\s+fetch|mix\s+deps\.get)\b/,
    ],
  ],
  [
    'run',
    [
      script('start|dev|serve|preview|watch'),
      /^(?:cargo\s+run|go\s+run\s+\.|dotnet\s+run|swift\s+run|mix\s+phx\.server)\b/,
      /^python[\d.]*\s+manage\.py\s+runserver\b/,
      /^(?:flask\s+run|uvicorn\s+\S+|docker\s+compose\s+up|docker-compose\s+up)\b/,
      /^make\s+(?:run|serve|start|dev)\b/,
    ],
  ],
];

/** Leading `cd dir &&` (the folder a part ran in) and trailing `2>&1`: not part of what it does. */
function core(command: string): string {
  return command
    .trim()
    .replace(/^(?:cd\s+(?:"[^"]+"|'[^']+'|[^\s;&|]+)\s*&&\s*)+/, '')
    .replace(/\s+2>&1\s*$/, '')
    .replace(/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+/, '') // FOO=1 pnpm test
    .trim();
}

/** The purpose of one command (no chains: see `commandParts`), or null for a one-off. */
export function commandPurpose(command: string): CommandPurpose | null {
  const c = core(command);
  if (c === '' || c.length > 300) return null;
  for (const [purpose, patterns] of PURPOSES) if (patterns.some((p) => p.test(c))) return purpose;
  return null;
}

/**
 * The parts of a command line that ran and succeeded when the whole line did: `a && b` (both ran
 * and exited 0), each with the `cd dir &&` before it kept. A line whose exit code may hide a failed
 * part (`a | b`, `a; b`, `a || b`, a heredoc, a subshell, background `&`) or that spans several
 * lines has no part that is verified: [].
 */
export function commandParts(command: string): string[] {
  const line = command.trim().replace(/\s+2>&1\s*$/, '');
  if (line === '' || /[\r\n]/.test(line)) return [];
  // Quotes hold anything; a part with a quoted `|` is still one part, but a line we cannot split
  // with certainty is left alone.
  const unquoted = line.replace(/"[^"]*"|'[^']*'/g, '""');
  if (/[|;`]|\$\(|<<|(?<![&>])&(?!&)/.test(unquoted)) return [];
  const pieces = line.split(/\s*&&\s*/);
  const out: string[] = [];
  let cd = '';
  for (const p of pieces) {
    if (/^cd\s+\S/.test(p)) {
      cd = `${cd}${p} && `;
      continue;
    }
    if (p !== '') out.push(`${cd}${p}`);
  }
  return out;
}
