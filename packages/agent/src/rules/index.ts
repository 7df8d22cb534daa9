export { readCommand, hasHiddenChars, type CommandPart, type CommandWord, type ReadCommand } from './command';
export { decide, concerns, floorOf, type CallFacts, type DecideContext, type Decision } from './decide';
export { allowsPart, mayMatchCommand, mayMatchPart, rulesInForce, scopeHolds, type Verdict } from './match';
export { ruleOptions } from './options';
export { describeRule } from './describe';
