'use client';

import { useId, type InputHTMLAttributes, type ReactNode } from 'react';

interface FieldProps {
  label: ReactNode;
  error?: string;
  hint?: ReactNode;
  optional?: boolean;
}

/** A labelled text input; its error is announced with the field and linked by aria-describedby. */
export function Input({ label, error, hint, optional, id, className, ...rest }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const generated = useId();
  const inputId = id ?? generated;
  const hintId = hint ? `${inputId}-hint` : undefined;
  const errorId = error ? `${inputId}-error` : undefined;
  return (
    <div className="field">
      <label className="field-label" htmlFor={inputId}>
        {label}
        {optional ? <span className="field-optional">(optional)</span> : null}
      </label>
      <input
        id={inputId}
        className={['input', className ?? ''].join(' ').trim()}
        aria-invalid={error ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
        {...rest}
      />
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
