import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SandboxStatus } from '@threadline/protocol';
import { sandboxRoutes } from '../store/routes';
import { Dialog } from './Dialog';
import { IconGlobe } from './Icons';
import { errorMessage } from '@threadline/protocol';

/**
 * "Allow network for commands" of one session, in the chat header: commands in the OS sandbox
 * have no network unless it is on. Turning it on asks for a confirmation once per session; with
 * no sandbox on this machine there is nothing to switch (commands ask each time instead).
 */
export function NetworkSwitch({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<SandboxStatus | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [confirmed, setConfirmed] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    setStatus(null);
    setConfirmed(false);
    sandboxRoutes
      .status({ sessionId })
      .then((s) => live && setStatus(s))
      .catch(() => live && setStatus(null));
    return () => {
      live = false;
    };
  }, [sessionId]);

  if (!status || status.kind === 'none') return null;
  const on = status.network === true;
  const domains = status.domains.join(', ');

  const set = async (allowed: boolean) => {
    setError(null);
    try {
      setStatus(await sandboxRoutes.setNetwork({ sessionId, allowed }));
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <>
      <button
        type="button"
        className={`btn btn-ghost network-btn ${on ? 'is-on network-on' : ''}`}
        aria-pressed={on}
        title={error ?? t(on ? 'sandbox.network.onHint' : 'sandbox.network.offHint', { domains })}
        onClick={() => {
          if (on) void set(false);
          else if (confirmed) void set(true);
          else setConfirming(true);
        }}
        data-testid="network-switch"
      >
        <IconGlobe />
        <span className="btn-label">{t(on ? 'sandbox.network.on' : 'sandbox.network.off')}</span>
      </button>
      {confirming && (
        <Dialog
          title={t('sandbox.network.confirmTitle')}
          onClose={() => setConfirming(false)}
          testId="network-confirm"
          footer={
            <>
              <button type="button" className="btn" onClick={() => setConfirming(false)}>
                {t('common.cancel')}
              </button>
              <button
                type="button"
                className="btn btn-primary"
                data-testid="network-confirm-yes"
                onClick={() => {
                  setConfirming(false);
                  setConfirmed(true);
                  void set(true);
                }}
              >
                {t('sandbox.network.confirmYes')}
              </button>
            </>
          }
        >
          <p>{t('sandbox.network.confirmBody', { domains })}</p>
        </Dialog>
      )}
    </>
  );
}
