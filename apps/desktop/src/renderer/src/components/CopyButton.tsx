import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconCheck, IconCopy, IconX } from './Icons';

/** Copies `getText()` to the clipboard and says so (or that it failed) for two seconds. */
export function CopyButton({ getText, className }: { getText: () => string; className?: string }) {
  const { t } = useTranslation();
  const [result, setResult] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copied = result === 'copied';
  const label =
    result === 'copied' ? t('common.copied') : result === 'failed' ? t('common.copyFailed') : t('common.copy');
  return (
    <button
      type="button"
      className={`icon-btn copy-btn ${className ?? ''}`}
      aria-label={label}
      title={label}
      onClick={() => {
        const text = getText();
        const show = (r: 'copied' | 'failed') => {
          setResult(r);
          setTimeout(() => setResult('idle'), 2000);
        };
        if (navigator.clipboard?.writeText)
          navigator.clipboard.writeText(text).then(
            () => show('copied'),
            () => show('failed'),
          );
        else show('failed');
      }}
    >
      {copied ? <IconCheck /> : result === 'failed' ? <IconX /> : <IconCopy />}
    </button>
  );
}
