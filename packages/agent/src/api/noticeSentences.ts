import type { CompactionRecord, ParsedNotice, Strategy, Trigger } from '@threadline/protocol';

export type ExportLanguage = 'en' | 'zh-CN';

/** The names the renderer shows for triggers and strategies (its locale files say the same). */
const NAMES: Record<ExportLanguage, { trigger: Record<Trigger, string>; strategy: Record<Strategy, string> }> = {
  en: {
    trigger: { auto: 'auto', manual: 'manual', recovery: 'recovery' },
    strategy: {
      legacy_segmented: 'Segmented summary',
      cfpm_memory_v1: 'Memory snapshot',
      progressive: 'Progressive',
      priority_chain: 'Priority chain',
    },
  },
  'zh-CN': {
    trigger: { auto: '自动', manual: '手动', recovery: '恢复' },
    strategy: {
      legacy_segmented: '分段摘要',
      cfpm_memory_v1: '记忆快照',
      progressive: '渐进式',
      priority_chain: '优先级链',
    },
  },
};

const ZH_FOLDERS = { Desktop: '桌面', Documents: '文档', Downloads: '下载' } as const;

/**
 * Notices as short sentences for the Markdown export, in the user's language. The renderer says
 * the same through i18next; the export is written here, in the agent, which cannot read the
 * renderer's locale files (layering), so the few sentences it needs live in this table.
 */
const SENTENCES = {
  en: {
    memory: (a: number, u: number, r: number, facts: number) =>
      `Memory changed: ${[a && `${a} added`, u && `${u} updated`, r && `${r} retired`].filter(Boolean).join(', ')} (${facts} ${facts === 1 ? 'fact' : 'facts'} in memory).`,
    gate: (target: string, from: string, to: string) =>
      `Threadline ran \`${to}\` instead of \`${from}\` (the ${target} path memory already knows).`,
    gateDeclined: (target: string, from: string, to: string) =>
      `Threadline suggested \`${to}\` (the ${target} path memory already knows); the user ran \`${from}\` instead.`,
    compaction: {
      auto_compacting: 'Auto-compaction started.',
      compacted: 'The conversation was compacted.',
      compaction_failed: 'A compaction was not applied.',
      recovering: 'The context was too long for the model: compacting and retrying.',
      max_attempts: 'Reached maximum compaction attempts. Please start a new session to continue.',
      auto_paused: 'Auto-compaction was paused after repeated failures.',
      undone: 'A compaction was undone: the model sees the full history again.',
      nothing_to_compact: 'Nothing to compact.',
      window_learned: "The provider stated a smaller context window than the profile's: Threadline now works with it.",
      message_too_large: 'One message is larger than the model’s context window on its own: it can be cut or left out.',
    },
    divider: (c: CompactionRecord) =>
      `Conversation compacted (${NAMES.en.trigger[c.trigger]}, ${NAMES.en.strategy[c.strategy]}): ${c.tokensBefore} → ${c.tokensAfter} tokens${c.active ? '' : ', later undone'}.`,
    error: {
      provider_error: 'The provider answered with an error',
      turn_failed: 'The turn failed',
      max_model_calls: 'The turn stopped after too many model calls.',
      doom_loop: 'The turn stopped: the agent repeated the same tool call.',
      crash_interrupted:
        'Threadline stopped unexpectedly while a command was running; it was ended at the next start and may have run only in part',
      helpers_interrupted: 'Threadline stopped while helpers were working; what they stored is kept.',
    },
    cancelled: 'Turn cancelled by the user.',
  },
  'zh-CN': {
    memory: (a: number, u: number, r: number, facts: number) =>
      `记忆已更新：${[a && `新增 ${a} 条`, u && `修改 ${u} 条`, r && `停用 ${r} 条`].filter(Boolean).join('，')}（共 ${facts} 条）。`,
    gate: (target: string, from: string, to: string) =>
      `Threadline 运行了 \`${to}\`，而不是 \`${from}\`（记忆中已知的${target}路径）。`,
    gateDeclined: (target: string, from: string, to: string) =>
      `Threadline 建议运行 \`${to}\`（记忆中已知的${target}路径）；用户选择运行原命令 \`${from}\`。`,
    compaction: {
      auto_compacting: '已开始自动压缩。',
      compacted: '对话已压缩。',
      compaction_failed: '一次压缩未被应用。',
      recovering: '上下文超出模型限制：正在压缩并重试。',
      max_attempts: '已达到最大压缩次数。请新建会话以继续。',
      auto_paused: '多次失败后，本会话的自动压缩已暂停。',
      undone: '已撤销一次压缩：模型重新看到完整历史。',
      nothing_to_compact: '没有可压缩的内容。',
      window_learned: '模型服务给出的上下文窗口小于配置中的值：Threadline 已改用该值。',
      message_too_large: '有一条消息本身就超过了模型的上下文窗口：可以截短它，或不再发给模型。',
    },
    divider: (c: CompactionRecord) =>
      `对话已压缩（${NAMES['zh-CN'].trigger[c.trigger]}，${NAMES['zh-CN'].strategy[c.strategy]}）：${c.tokensBefore} → ${c.tokensAfter} 个 token${c.active ? '' : '，之后已撤销'}。`,
    error: {
      provider_error: '模型服务返回了错误',
      turn_failed: '本轮失败',
      max_model_calls: '模型调用次数过多，本轮已停止。',
      doom_loop: '本轮已停止：智能体重复调用了相同的工具。',
      crash_interrupted: 'Threadline 在命令运行时意外停止；该命令已在下次启动时被终止，可能只执行了一部分',
      helpers_interrupted: 'Threadline 在助手工作时停止；它们已保存的内容都保留着。',
    },
    cancelled: '用户取消了本轮。',
  },
} as const;

/** One sentence for a notice, or null when it says nothing a reader needs (memory with no change). */
export function noticeSentence(n: ParsedNotice, lang: ExportLanguage): string | null {
  const s = SENTENCES[lang];
  switch (n.type) {
    case 'runtime': {
      const { added = 0, updated = 0, retired = 0 } = n.payload;
      if (added + updated + retired === 0) return null;
      return s.memory(added, updated, retired, n.payload.factCount);
    }
    case 'gate': {
      const p = n.payload;
      const target = lang === 'zh-CN' ? ZH_FOLDERS[p.target] : p.target;
      return (p.declined ? s.gateDeclined : s.gate)(target, p.originalCommand, p.rewrittenCommand);
    }
    case 'compaction':
      // Older sessions hold started/finished notices too; the divider line says it once.
      if (n.payload.type === 'auto_compacting' || n.payload.type === 'compacted') return null;
      return s.compaction[n.payload.type];
    case 'error': {
      const head = s.error[n.payload.type];
      if (n.payload.command) return `${head}: \`${n.payload.command}\``;
      return n.payload.message ? `${head}: ${n.payload.message}` : head;
    }
  }
}

export function dividerSentence(c: CompactionRecord, lang: ExportLanguage): string {
  return SENTENCES[lang].divider(c);
}

export function cancelledSentence(lang: ExportLanguage): string {
  return SENTENCES[lang].cancelled;
}

export function anotherVersionSentence(lang: ExportLanguage): string {
  return lang === 'zh-CN' ? '从这里开始的另一个版本：' : 'Another version from here:';
}
