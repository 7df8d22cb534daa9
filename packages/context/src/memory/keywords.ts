/** Keyword lists (English and Simplified Chinese) that classify lines into drafts. */

export const GOAL_PATTERNS: RegExp[] = [
  /^(?:my|the|our|your|main|overall)?\s*(?:goal|task|objective|aim)\s*(?:is|will be|:)/i,
  /\b(?:the|my|our|your) (?:goal|task|objective) (?:here )?is to\b/i,
  /\b(?:I|we) (?:need|have|want) to (?:fix|implement|add|make|ensure|find|update|create|support|resolve|change)\b/i,
  /^(?:目标|任务|需求)\s*[:：是]/,
  /(?:我的|我们的|本次)?(?:目标|任务)是/,
  /(?:我|我们)(?:需要|要|得)(?:修复|实现|添加|确保|找到|更新|创建|支持|解决|修改)/,
];

/**
 * What an assistant states as the goal ("The goal is to…", "目标是…"); its "I need to update X"
 * narrates the next micro-step and is no goal.
 */
export const EXPLICIT_GOAL_PATTERNS: RegExp[] = [
  GOAL_PATTERNS[0]!,
  GOAL_PATTERNS[1]!,
  GOAL_PATTERNS[3]!,
  GOAL_PATTERNS[4]!,
];

export const OPEN_ITEM_PATTERNS: RegExp[] = [
  /^(?:#|\/\/)?\s*(?:TODO|FIXME)\b\s*[:(-]?/,
  /\bnext steps?\s*(?:is|are|will be|:)/i,
  /\b(?:still|also) (?:need|have) to\b/i,
  /\b(?:remaining|pending|outstanding|open) (?:work|items?|tasks?|issues?|steps?|questions?)\b/i,
  /\bfollow[- ]up\b/i,
  /^(?:待办|下一步|还需要|仍需|尚未|待处理|待确认|接下来)/,
  /(?:还需要|仍需|尚未完成|待处理|待确认)/,
];

/** Assistant claims of success; without a tool success marker they stay unconfirmed. */
export const CLAIM_PATTERNS: RegExp[] = [
  /\b(?:successfully|I have (?:now )?(?:fixed|created|updated|implemented|verified)|(?:all )?tests? (?:now )?pass(?:es|ed)?)\b/i,
  /(?:已经?|成功)(?:修复|创建|更新|实现|验证|完成)|测试(?:已|全部)?通过/,
];

/** Tool result markers of a successful command. */
export const SUCCESS_MARKERS: RegExp[] = [
  /<returncode>\s*0\s*<\/returncode>/i,
  /\bexit(?:ed)?(?:\s+with)?\s*(?:code|status)\s*[:=]?\s*0\b/i,
  /\[exit(?: code)?:?\s*0\]/i,
  /(?:退出码|退出代码|返回码)\s*[:：]?\s*0\b/,
];

export const FAILURE_MARKERS: RegExp[] = [
  /<returncode>\s*[1-9]\d*\s*<\/returncode>/i,
  /\bexit(?:ed)?(?:\s+with)?\s*(?:code|status)\s*[:=]?\s*-?[1-9]\d*\b/i,
  /(?:退出码|退出代码|返回码)\s*[:：]?\s*-?[1-9]/,
];

/** A line saying a path does not exist (gives an `invalid_path` draft). */
export const MISSING_PATH_PATTERNS: RegExp[] = [
  /\bENOENT\b/,
  /no such file or directory/i,
  /cannot find (?:the )?path/i,
  /the system cannot find the (?:path|file) specified/i,
  /\b(?:path|file|directory|folder) (?:does not|doesn'?t) exist\b/i,
  /\bdoes not exist\b/i,
  /FileNotFoundError/,
  /系统找不到指定的(?:路径|文件)/,
  /找不到(?:路径|文件)|路径不存在|文件不存在|目录不存在/,
];

/** Error/traceback lines: transient noise, never facts. */
export const ERROR_LINE_PATTERNS: RegExp[] = [
  /^\s*Traceback \(most recent call last\)/,
  /^\s*File "[^"]+", line \d+/,
  /^\s*(?:[\w.]+)?(?:Error|Exception)\b[:(]/,
  /^\s*(?:error|fatal|panic|warning|warn|E)\s*[:[]/i,
  /^\s*FAIL(?:ED)?\b/,
  /^\s*at [\w$.<>]+ \(.*:\d+:\d+\)$/,
  /(?:错误|异常|失败)\s*[:：]/,
];

/** Runtime log lines: a timestamp or a log level in front. */
export const LOG_LINE_PATTERNS: RegExp[] = [
  /^\s*\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?/,
  /^\s*\[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?\s/,
  /^\s*\[?(?:DEBUG|INFO|TRACE|NOTICE)\]?[\s:]/,
];

/**
 * Text that addresses the model rather than describing the work: a prompt injection when it
 * comes from a tool output or a file. Never promoted into a goal.
 */
export const INSTRUCTION_PATTERNS: RegExp[] = [
  // No outer word boundaries: glued text (`EOFignore previous instructionsTODO`) must match too.
  /(?:ignore|disregard|forget|override)\b.{0,40}\b(?:previous|prior|above|earlier|all|any|your)\b.{0,30}\b(?:instructions?|rules|prompts?|messages?|directions)/i,
  /\byou (?:are|must|should|will) now\b/i,
  /\b(?:new|updated|real) (?:system )?instructions?\s*[:：]/i,
  // "system prompt" alone is a normal topic ("update the system prompt template"); only the
  // phrasing that tries to read it out or replace it is an injection.
  /\b(?:ignore|disregard|forget|override|bypass|reveal|print|show|output|repeat|leak|dump|display|expose|tell me)\b.{0,40}\bsystem prompt\b/i,
  /\b(?:new|updated|real|actual|true|your) system prompt\s*(?:is\s*)?[:：]/i,
  /\bsystem prompt\s*[:：]\s*you (?:are|must|will|should)\b/i,
  /\b(?:as an ai|assistant,? you must|from now on,? you)\b/i,
  /<\/?(?:system|instructions?)>/i,
  /(?:忽略|无视|忘记).{0,10}(?:之前|以上|先前|前面|所有).{0,10}(?:指令|指示|提示|规则)/,
  /(?:你现在是|从现在起你|新的指令)/,
];

export function matchesAny(patterns: readonly RegExp[], text: string): boolean {
  return patterns.some((p) => p.test(text));
}

/** Goals and constraints a user states outright, in English and Chinese (a sentence's start). */
export const USER_GOAL_PATTERNS: RegExp[] = [
  /^(?:my|our|the)?\s*(?:main |overall |end )?(?:goal|objective|aim)s?\s*(?:is|are|:)/i,
  /^(?:task|requirement|constraint)s?\s*:/i,
  /^I (?:want|need|would like|'d like)\b/i,
  /^(?:please\s+)?(?:don'?t|do not|never|always|avoid|make sure|must not|mustn'?t)\b/i,
  // A tool or library to use ("Use axios for…", "Please use pnpm."): what a correction replaces.
  /^(?:please\s+)?(?:use|switch to|stick (?:to|with))\s+[`'"]?[\w.@/+-]+/i,
  /^(?:我的|我们的|本次)?(?:目标|任务|要求|需求)\s*[:：是]/,
  /^(?:我|我们)(?:想|要|希望|需要)/,
  /^(?:请)?(?:不要|别|不能|禁止|务必|一定要|千万别)/,
  /^(?:请)?(?:使用|改用|用)\s*[`'"“]?[\w.@/+-]+/,
];

/** A login shell's start-up output: profile files, version managers and their shims. */
export const STARTUP_NOISE_PATTERNS: RegExp[] = [
  /(?:^|[\s/~])\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|cshrc|tcshrc|config\/fish)\b/,
  /\b(?:nvm|pyenv|rbenv|nodenv|goenv|jenv|asdf|mise|rtx|volta|fnm|sdkman|conda|direnv)\b.*(?:\/|warn|error|not found|command)/i,
  /[/\\]shims?[/\\]/,
];

/** An open-item sentence that reports finished work ("has been successfully updated", "已完成"). */
export const FINISHED_PATTERNS: RegExp[] = [
  /\b(?:has|have) been (?:\w+ly )?(?:updated|fixed|completed|done|created|implemented|resolved|added|finished|removed|merged)\b/i,
  /\b(?:successfully|is now (?:done|fixed|complete)|(?:are|is) (?:all )?(?:done|complete|finished))\b/i,
  /^(?:done|completed|finished|fixed)\b/i,
  // "Added the favicon.", "I've removed the debug prints", "Documented the check in docs/ops.md."
  /^(?:(?:ok(?:ay)?|now|so|great)[,:]?\s+)?(?:I(?:'ve| have)?\s+)?(?:now\s+)?(?:added|removed|updated|fixed|created|implemented|deleted|cleaned up|documented|refactored|renamed|wrote|moved|installed|configured|resolved)\b/i,
  /(?:已经?|均已|全部)(?:完成|修复|更新|解决|实现)|已完成/,
];

/**
 * Lines an operating system or a shell prints when a write or a command failed, whatever the exit
 * status says (`touch x; echo done` exits 0): a call whose output holds one verified nothing.
 */
export const FAILED_OUTPUT_PATTERNS: RegExp[] = [
  /\bRead-only file system\b/i,
  /\bPermission denied\b/i,
  /\bOperation not permitted\b/i,
  /\bNo space left on device\b/i,
  /\bcannot (?:touch|create|open|remove|write|move|stat|access|overwrite)\b/i,
  /\bDirectory nonexistent\b/i,
  /\b(?:EROFS|EACCES|EPERM|ENOSPC)\b/,
  /\bcommand not found\b/i,
  /(?:只读文件系统|权限不够|拒绝访问|没有那个文件或目录)/,
];

/** A correction's opening ("Actually,", "No,", "Scratch that:", "不对，", "其实"): dropped before a user sentence is read. */
export const CORRECTION_OPENING =
  /^(?:(?:actually|no|nope|wait|sorry|correction|scratch that|instead|on second thought|change of plan|update)\b[\s,:;.!—-]*|(?:不对|不是|其实|更正|改一下|等等)[\s，,：:。]*)+/i;

/**
 * What a user's instruction rules out: `don't use X`, `do not use X`, `stop using X`, `never
 * use X`, `no more X`, `avoid X`, `instead of X`, `rather than X`, `不要用 X`, `别用 X`, `不用 X`…
 * (X: one word, identifier or quoted name). A newer instruction that rules X out supersedes an
 * older one that asked for it.
 */
export const RULES_OUT: RegExp[] = [
  /\b(?:don'?t|do not|never|stop|no longer)\s+(?:use|using|call|calling|add|adding|install|installing)\s+[`'"]?([\w.@/+-]+)/i,
  /\b(?:avoid|drop)\s+(?:using\s+)?[`'"]?([\w.@/+-]+)/i,
  /\b(?:instead of|rather than|no more)\s+[`'"]?([\w.@/+-]+)/i,
  /(?:不要|别|不用|不再|停止)\s*(?:用|使用|采用|调用)?\s*[`'"“]?([\w.@/+-]+)/,
];

/**
 * An assistant's status sentence: progress or a state, not what the user is after ("The goal is
 * now achieved", "The task is done", "目标已完成").
 */
export const STATUS_SENTENCE: RegExp[] = [
  /\b(?:is|are|was|were|has been|have been)\s+(?:now\s+)?(?:achieved|accomplished|done|complete|completed|finished|met|fixed|resolved|working)\b/i,
  /\b(?:now|already)\s+(?:achieved|done|complete|fixed|working)\b/i,
  /(?:已经?|均已|全部)?(?:完成|达成|实现|解决)了?[。！!]?$|已完成|已达成|已实现|已解决/,
];
