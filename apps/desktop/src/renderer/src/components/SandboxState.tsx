import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApprovalPolicy, SandboxStatus } from '@threadline/protocol';
import { sandboxRoutes } from '../store/routes';

/**
 * Under Settings → Tool approval: which mode is in force for commands, given the OS sandbox this
 * machine has, and where there is none, why in one sentence and how to get one.
 */
export function SandboxState({ policy }: { policy: ApprovalPolicy }) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<SandboxStatus | null>(null);
  useEffect(() => {
    let live = true;
    sandboxRoutes
      .status({})
      .then((s) => live && setStatus(s))
      .catch(() => live && setStatus(null));
    return () => {
      live = false;
    };
  }, []);
  if (!status) return null;
  let text: string;
  if (status.kind !== 'none') {
    const name = t(`sandbox.names.${status.kind}`);
    text = policy === 'sandboxed' ? t('sandbox.settings.inForce', { name }) : t('sandbox.settings.available', { name });
  } else {
    const why = t(`sandbox.none.${status.reason ?? 'disabled'}`);
    text = policy === 'sandboxed' ? t('sandbox.settings.fallback', { why }) : why;
  }
  return (
    <div
      className={`sandbox-state ${status.kind === 'none' ? 'sandbox-none' : 'sandbox-ok'}`}
      role="status"
      data-testid="sandbox-state"
      data-kind={status.kind}
    >
      <div>{text}</div>
      {status.detail && (
        <div className="muted mono sandbox-detail">{t('sandbox.settings.detail', { detail: status.detail })}</div>
      )}
    </div>
  );
}
