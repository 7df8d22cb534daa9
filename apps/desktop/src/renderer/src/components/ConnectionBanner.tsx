import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import type { ConnectionState } from '../transport';
import { IconAlert } from './Icons';

/** Whether requests can reach the runtime ('connecting' is the first moments of a page: they can). */
export const isReachable = (s: ConnectionState): boolean => s === 'open' || s === 'connecting';

/**
 * Browser mode only: says when the page lost the runtime. Reconnecting while the event stream
 * comes back; then, when nothing answers or the token is refused, that Threadline stopped (or was
 * restarted) and the new address it printed must be opened. Send is disabled meanwhile.
 */
export function ConnectionBanner() {
  const { t } = useTranslation();
  const connection = useAppStore((s) => s.connection);
  if (isReachable(connection)) return null;
  const text =
    connection === 'reconnecting'
      ? t('connection.reconnecting')
      : connection === 'unauthorized'
        ? t('connection.unauthorized')
        : t('connection.stopped');
  return (
    <div className={`connection-banner ${connection}`} role="alert" data-testid="connection-banner">
      <IconAlert />
      <span>{text}</span>
    </div>
  );
}
