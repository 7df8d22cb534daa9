import { useState } from 'react';
import type { SettingsPatch } from '@threadline/protocol';
import { useAppStore } from '../store';

/**
 * A settings section's changes: each applied at once, the runtime's refusal in the section's one
 * banner (`error`). A newer word replaces it: the next change, or a field's own refusal (`clear`).
 */
export function useApplySettings() {
  const update = useAppStore((s) => s.updateSettings);
  const [error, setError] = useState<string | null>(null);
  const apply = (patch: SettingsPatch) => {
    setError(null);
    void update(patch).then(setError);
  };
  return { apply, error, clear: () => setError(null) };
}
