/** The message input's element id: focus targets (shortcuts, dialogs) find it by this. */
export const COMPOSER_ID = 'composer-input';
