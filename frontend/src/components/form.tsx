import { useEffect, useId, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange'> {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  /** Something beside the input (a send-code button, a country code). */
  addon?: ReactNode;
  before?: ReactNode;
}

/** A labelled input with its error message (read out with the field). */
export function Field({ label, value, onChange, error, addon, before, id, ...input }: FieldProps) {
  const auto = useId();
  const inputId = id ?? auto;
  const errorId = `${inputId}-error`;
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={inputId}>{label}</label>
      <div className="field__control">
        {before}
        <input id={inputId} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={error ? true : undefined} aria-describedby={error ? errorId : undefined} {...input} />
        {addon}
      </div>
      {error && (
        <p id={errorId} className="field__error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** Counts down from `seconds` once started; `left` is 0 when idle. */
export function useCountdown(seconds = 60) {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (left <= 0) return;
    const timer = setTimeout(() => setLeft((s) => s - 1), 1000);
    return () => clearTimeout(timer);
  }, [left]);
  return { left, start: () => setLeft(seconds) };
}

/** "Send code" with a 60 s countdown (the server refuses a second code within 60 s, code 1104). */
export function SendCodeButton({ onSend, disabled }: { onSend: () => Promise<boolean>; disabled?: boolean }) {
  const { t } = useTranslation();
  const { left, start } = useCountdown(60);
  const [busy, setBusy] = useState(false);
  const click = async () => {
    setBusy(true);
    try {
      if (await onSend()) start();
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="button button--small" onClick={click} disabled={disabled || busy || left > 0}>
      {left > 0 ? t('auth.resendIn', { seconds: left }) : t('auth.sendCode')}
    </button>
  );
}

/** An on/off switch with a visible label. */
export function Switch({ label, checked, onChange }: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <button type="button" role="switch" aria-checked={checked} className="list__item switch-row" onClick={() => onChange(!checked)}>
      <span>{label}</span>
      <span className={`switch${checked ? ' is-on' : ''}`} aria-hidden="true" />
    </button>
  );
}

/** Phone or e-mail: the two contact channels of registration and recovery. */
export function Segmented<T extends string>({ label, value, options, onChange }: { label: string; value: T; options: Array<{ value: T; label: string }>; onChange: (v: T) => void }) {
  return (
    <div className="segmented" role="radiogroup" aria-label={label}>
      {options.map((o) => (
        <button key={o.value} type="button" role="radio" aria-checked={value === o.value} className={value === o.value ? 'is-active' : ''} onClick={() => onChange(o.value)}>
          {o.label}
        </button>
      ))}
    </div>
  );
}

/**
 * A list's filter tabs (a `nav` of pressed/unpressed buttons, one shown at a time): the status
 * tabs of the order and record screens, the product tabs of loans and wealth.
 */
export function FilterTabs<T extends string | number>({
  label,
  value,
  options,
  onChange,
  className,
  testId,
}: {
  label: string;
  value: T;
  options: ReadonlyArray<{ value: T; label: ReactNode }>;
  onChange: (v: T) => void;
  className?: string;
  /** Each tab's `data-testid`, from its value. */
  testId?: (v: T) => string;
}) {
  return (
    <nav className={className ? `segmented ${className}` : 'segmented'} aria-label={label}>
      {options.map((o) => (
        <button key={o.value} type="button" className={value === o.value ? 'is-active' : ''} aria-pressed={value === o.value} onClick={() => onChange(o.value)} data-testid={testId?.(o.value)}>
          {o.label}
        </button>
      ))}
    </nav>
  );
}

/** A labelled native select (one tap on a phone, read out by screen readers). */
export function SelectField<T extends string>({ label, value, options, onChange, name }: { label: string; value: T; options: Array<{ value: T; label: string }>; onChange: (v: T) => void; name?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} className="select" name={name} value={value} onChange={(e) => onChange(e.target.value as T)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
