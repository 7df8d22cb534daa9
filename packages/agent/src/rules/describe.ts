import type { PathScope, RuleMatch } from '@threadline/protocol';

function where(scope: PathScope): string {
  switch (scope.kind) {
    case 'any':
      return 'any path';
    case 'inside':
      return 'paths inside the working folder';
    case 'outside':
      return 'paths outside the working folder';
    case 'folder':
      return `paths in ${scope.path}`;
    case 'glob':
      return `paths matching ${scope.pattern}`;
  }
}

/** What a rule matches, in a sentence the model reads (the card words it in the user's language). */
export function describeRule(m: RuleMatch): string {
  switch (m.kind) {
    case 'command': {
      const sandbox = m.sandbox === 'only' ? ', inside the sandbox' : '';
      if (m.words.length === 0) return `${m.tool}: any command${sandbox}`;
      return `${m.tool}: ${m.words.join(' ')}${m.more ? ' …' : ' (exactly)'}${sandbox}`;
    }
    case 'path':
      return `${m.tool} on ${where(m.scope)}`;
    case 'mcp':
      return m.tool === null ? `every tool of the MCP server ${m.server}` : `${m.tool} of the MCP server ${m.server}`;
    case 'tool':
      return `every call of ${m.tool}`;
  }
}
