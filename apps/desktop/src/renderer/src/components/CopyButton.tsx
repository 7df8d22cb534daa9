import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { IconCheck, IconCopy } from './Icons';

/** Copies `getText()` to the clipboard and says so for two seconds. */
export function CopyButton({ getText, className }: { getText: () => string; className?: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const label = copied ? t('common.copied') : t('common.copy');
  return (
    <button
      type="button"
      className={`icon-btn copy-btn ${className ?? ''}`}
      aria-label={label}
      title={label}
      onClick={() => {
        const text = getText();
        const done = () => {
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        };
        if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).then(done, done);
        else done();
      }}
    >
      {copied ? <IconCheck /> : <IconCopy />}
    </button>
  );
}
