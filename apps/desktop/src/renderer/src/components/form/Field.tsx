import { useId, type ReactNode } from 'react';

/** What a field gives its control: the ids that tie it to its label, hint and error. */
export interface ControlProps {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
}

/**
 * One form field: label, control, hint, warning and error, their ids wired (the label names the
 * control, the hint and error describe it, an error marks it invalid). Every settings, provider,
 * MCP and setup form lays its fields out with it. `error` is a sentence already in the user's
 * language (see lib/formErrors.ts); `labelExtra` sits beside the label (a "key set" badge, a button).
 */
export function Field({
  label,
  labelExtra,
  hint,
  warning,
  error,
  wide = false,
  layout = 'stacked',
  controlId,
  className,
  errorTestId,
  children,
}: {
  label: ReactNode;
  /** `stacked`: label above the control (forms); `row`: label and hint left, control right (Settings). */
  layout?: 'stacked' | 'row';
  /** The control's own id, when it has one already (else one is made). */
  controlId?: string;
  labelExtra?: ReactNode;
  hint?: ReactNode;
  warning?: ReactNode;
  error?: string | null;
  wide?: boolean;
  className?: string;
  errorTestId?: string;
  children: (control: ControlProps) => ReactNode;
}) {
  const made = useId();
  const id = controlId ?? made;
  const hintId = hint ? `${id}-hint` : undefined;
  const warningId = warning ? `${id}-warning` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, warningId, hintId].filter(Boolean).join(' ');
  const control: ControlProps = {
    id,
    ...(describedBy ? { 'aria-describedby': describedBy } : {}),
    ...(error ? { 'aria-invalid': true as const } : {}),
  };
  const messages = (
    <>
      {warning && (
        <span className="field-warning" id={warningId} role="status">
          {warning}
        </span>
      )}
      {error && (
        <span className="field-error" id={errorId} role="alert" data-testid={errorTestId}>
          {error}
        </span>
      )}
    </>
  );
  if (layout === 'row')
    return (
      <div className={['setting-row', className ?? ''].filter(Boolean).join(' ')}>
        <div className="setting-text">
          <label className="setting-label" htmlFor={id}>
            {label}
          </label>
          {labelExtra}
          {hint && (
            <div className="setting-help" id={hintId}>
              {hint}
            </div>
          )}
        </div>
        <div className="setting-control">
          {children(control)}
          {messages}
        </div>
      </div>
    );
  return (
    <div className={['field', wide ? 'field-wide' : '', className ?? ''].filter(Boolean).join(' ')}>
      <span className="field-label">
        <label htmlFor={id}>{label}</label>
        {labelExtra}
      </span>
      {children(control)}
      {hint && (
        <span className="field-hint" id={hintId}>
          {hint}
        </span>
      )}
      {messages}
    </div>
  );
}

/** A form's message: an error, or a warning with what can be done about it. */
export interface Banner {
  tone: 'error' | 'warning';
  text: string;
  testId?: string;
  /** A button beside the text ("Save anyway"). */
  action?: ReactNode;
}

/**
 * The one banner of a form: a form keeps a single `Banner | null`, so a newer message replaces
 * the older one instead of standing beside it.
 */
export function FormBanner({ banner }: { banner: Banner | null }) {
  if (!banner) return null;
  return (
    <div
      className={banner.tone === 'error' ? 'form-error' : 'form-warning'}
      role={banner.tone === 'error' ? 'alert' : 'status'}
      data-testid={banner.testId}
    >
      {banner.text}
      {banner.action}
    </div>
  );
}
