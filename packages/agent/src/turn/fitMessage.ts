import { countMessageTokensAsync, truncateToolOutputAsync } from '@threadline/context';
import { AppError, type CompactionRecord } from '@threadline/protocol';
import type { SessionWork } from './sessionWork';
import { tokenBudget } from './budget';
import { buildSessionView } from './view';

/**
 * compaction.fitMessage: one message over the model's window on its own (the one
 * failure best effort cannot avoid). `cut` hides it and puts its head and tail in its place (half
 * the window, as a long paste is cut when sent); `remove` hides it. A compaction record like any
 * other: shown as a divider, undone with compaction.undo; history keeps the message whole. The
 * message is large by nature: it is counted and cut in slices (the runtime answers meanwhile).
 */
export async function fitMessage(
  work: SessionWork,
  messageId: string,
  action: 'cut' | 'remove',
): Promise<CompactionRecord> {
  const { deps, sessionId, settings, profile } = work;
  const sv = buildSessionView(work);
  const inView = sv.inView.find((m) => m.id === messageId);
  const stored = inView ? deps.store.messages.get(messageId) : null;
  if (!inView || !stored) throw new AppError('not_found', 'That message is not part of what the model reads.');
  const budget = tokenBudget(deps, sessionId, profile);
  const before = sv.view.tokens;
  const own = inView.tokens ?? (await countMessageTokensAsync(stored, profile.model));
  const id = deps.newId();
  const inserted = [];
  let added = 0;
  if (action === 'cut') {
    const text = stored.fullOutput ?? stored.content ?? '';
    const limit = Math.max(1, Math.floor(budget.viewWindow / 2));
    const cut = await truncateToolOutputAsync(text, {
      policy: 'tokens',
      maxTokens: limit,
      model: profile.model,
      outputId: messageId,
    });
    if (!cut.truncated) throw new AppError('conflict', 'The message already fits the window: nothing to cut.');
    const copy = {
      role: stored.role,
      content: cut.text,
      kind: stored.kind,
      ...(stored.tool_call_id !== undefined ? { tool_call_id: stored.tool_call_id } : {}),
      ...(stored.name !== undefined ? { name: stored.name } : {}),
      meta: { compactionId: id, anchorSeq: stored.seq, anchorOrder: 0, placeholderFor: stored.id },
    };
    added = await countMessageTokensAsync(copy, profile.model);
    inserted.push(copy);
  }
  const tokensBefore = budget.providerTokens(before);
  const tokensAfter = budget.providerTokens(before - own + added);
  const { record } = deps.sessions.applyCompaction(
    sessionId,
    {
      id,
      strategy: settings.compaction.strategy,
      trigger: 'manual',
      steps: [
        {
          name: action === 'cut' ? 'cut_message' : 'remove_message',
          tokensBefore,
          tokensAfter,
          hidden: 1,
          inserted: inserted.length,
        },
      ],
      hiddenIds: [messageId],
      tokensBefore,
      tokensAfter,
      summary: null,
      instructions: null,
    },
    inserted,
  );
  deps.emit({ type: 'compaction.finished', sessionId, compaction: record });
  return record;
}
