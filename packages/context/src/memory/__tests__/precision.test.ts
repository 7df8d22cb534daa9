import { describe, expect, it } from 'vitest';
import { callFolder, inFolder, isNarration, isTemplateOrStatus } from '../extract';

/** Issue 22 point 6: the rules behind the labelled shapes, in English and Chinese. */
describe('memory precision rules', () => {
  it('template and status lines are no goals; a stated goal is', () => {
    for (const s of [
      'Objective: What is the goal of the task?',
      'Task: <describe the task here>',
      'Goal: {goal}',
      'Status: in progress',
      'Task 3/5: done',
      'Goal: TBD',
      '目标：待定',
      '状态：进行中',
    ])
      expect(isTemplateOrStatus(s), s).toBe(true);
    for (const s of ['My goal: add a due-date column to process/tasks.md.', '目标：把报告按月份归档。'])
      expect(isTemplateOrStatus(s), s).toBe(false);
  });

  it('narration and the assistant’s plans are not open items; the work left is', () => {
    for (const s of [
      'Let me analyze the code first.',
      'Now I need to check how the list is parsed.',
      "Next step: I'll run the linter.",
      'OK, I still need to update the tests.',
      '让我先看看代码。',
      '接下来我需要修改解析器。',
    ])
      expect(isNarration(s), s).toBe(true);
    for (const s of ['Remaining work: sort the table by due date.', 'TODO: document the format.', '还需要更新文档。'])
      expect(isNarration(s), s).toBe(false);
  });

  it('a relative path is the folder’s the call ran in', () => {
    expect(callFolder('cd process && cat tasks.md', {})).toBe('process');
    expect(callFolder('cd "my docs"; ls', {})).toBe('my docs');
    expect(callFolder('ls', { cwd: 'web/' })).toBe('web');
    expect(callFolder('ls -la', {})).toBeNull();
    expect(inFolder('tasks.md', 'process')).toBe('process/tasks.md');
    expect(inFolder('./a/b.md', 'docs')).toBe('docs/a/b.md');
    expect(inFolder('/etc/hosts', 'docs')).toBe('/etc/hosts');
    expect(inFolder('docs/a.md', 'docs')).toBe('docs/a.md');
    expect(inFolder('报告.txt', 'C:\\Users\\u\\Desktop')).toBe('C:\\Users\\u\\Desktop\\报告.txt');
  });
});
