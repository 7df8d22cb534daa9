import { describe, expect, it } from 'vitest';
import { ERROR_NOTICE_PREFIX, type AttachmentRef } from '@threadline/protocol';
import i18n from '../i18n';
import { visibleUserText } from '../lib/attachFile';
import { errorNoticeText } from '../lib/reasons';

const file: AttachmentRef = { id: 'f1', kind: 'text', name: 'notes.md', mime: 'text/markdown', size: 5, chars: 5 };
const image: AttachmentRef = {
  id: 'i1',
  kind: 'image',
  name: 'a.png',
  mime: 'image/png',
  size: 9,
  width: 2,
  height: 2,
};

describe('a user message with attachments', () => {
  it('shows the text the user wrote, not the blocks of its files', () => {
    const content = 'look at this\n\n<attachment name="notes.md" id="f1" chars="5">\nhello\n</attachment>';
    expect(visibleUserText(content, [image, file])).toBe('look at this');
    expect(visibleUserText('<attachment name="notes.md" id="f1" chars="5">\nhello\n</attachment>', [file])).toBe('');
    // A block the user typed (not one of its files) stays text.
    expect(visibleUserText('<attachment name="x" id="other" chars="1">', [file])).toBe(
      '<attachment name="x" id="other" chars="1">',
    );
    expect(visibleUserText('just an image', [image])).toBe('just an image');
  });

  it("says in the user's language that the model cannot read images", async () => {
    const notice = `${ERROR_NOTICE_PREFIX} ${JSON.stringify({
      version: 'v1',
      type: 'provider_error',
      kind: 'no_vision',
      model: 'deepseek-chat',
      detail: 'deepseek-chat does not accept image input',
    })}`;
    await i18n.changeLanguage('en');
    expect(errorNoticeText(notice, i18n.t)).toMatch(/^deepseek-chat cannot read images\. Pick a model with vision/);
    await i18n.changeLanguage('zh-CN');
    expect(errorNoticeText(notice, i18n.t)).toMatch(/^deepseek-chat 无法读取图片/);
    await i18n.changeLanguage('en');
  });
});
