/** Marks a Settings field that holds a value it refused (set by SettingField). */
export const REFUSED_SETTING = 'data-refused-setting';

/**
 * Settings is closing (Esc, the close button, another command): a field that holds a refused
 * value keeps it open instead — its sentence is beside it, and the value stays until it is fixed
 * or Esc in the field puts the setting back. Focuses that field; returns whether there was one.
 */
export function holdForRefusedSetting(): boolean {
  const field = document.querySelector<HTMLElement>(`[${REFUSED_SETTING}]`);
  field?.focus();
  return field !== null;
}
