import type { TFunction } from 'i18next';
import type { PathScope, Rule, RuleMatch, RuleScope } from '@threadline/protocol';

function pathText(t: TFunction, scope: PathScope): string {
  switch (scope.kind) {
    case 'any':
      return t('rules.path.any');
    case 'inside':
      return t('rules.path.inside');
    case 'outside':
      return t('rules.path.outside');
    case 'folder':
      return t('rules.path.folder', { path: scope.path });
    case 'glob':
      return t('rules.path.glob', { pattern: scope.pattern });
  }
}

/**
 * What a rule matches, in one line of the user's language: the card's choices, the header's list
 * and Settings all say it the same way (`shell: npm run test …, with any arguments, in the sandbox`).
 */
export function matchText(t: TFunction, m: RuleMatch): string {
  switch (m.kind) {
    case 'command': {
      const what =
        m.words.length === 0
          ? t('rules.command.any', { tool: m.tool })
          : t(m.more ? 'rules.command.prefix' : 'rules.command.exact', { tool: m.tool, words: m.words.join(' ') });
      return `${what}${t(m.sandbox === 'only' ? 'rules.command.sandboxOnly' : 'rules.command.alsoOutside')}`;
    }
    case 'path':
      return t('rules.path.tool', { tool: m.tool, where: pathText(t, m.scope) });
    case 'mcp':
      return m.tool === null
        ? t('rules.mcp.server', { server: m.server })
        : t('rules.mcp.tool', { server: m.server, tool: m.tool });
    case 'tool':
      return t('rules.tool', { tool: m.tool });
  }
}

/** Where a rule holds: this session (or a named one), a folder, everywhere. */
export function scopeText(t: TFunction, scope: RuleScope, sessionTitle?: string): string {
  if (scope.kind === 'session')
    return sessionTitle !== undefined
      ? t('rules.scope.sessionNamed', { title: sessionTitle })
      : t('rules.scope.session');
  if (scope.kind === 'folder') return t('rules.scope.folder', { folder: scope.folder });
  return t('rules.scope.everywhere');
}

/** A rule in one line: its decision, what it matches, where it holds. */
export function ruleText(t: TFunction, rule: Pick<Rule, 'match' | 'scope'> & { decision: Rule['decision'] }): string {
  return t('rules.line', {
    decision: t(`rules.decision.${rule.decision}`),
    match: matchText(t, rule.match),
    scope: scopeText(t, rule.scope),
  });
}
