'use client';

import { useId, type ReactNode, type SelectHTMLAttributes } from 'react';

export interface SelectOption {
  value: string;
  label: string;
}

/** A native select with the field's label, hint and inline error; `label` may be visually hidden in tables. */
export function Select({
  label,
  hideLabel = false,
  options,
  error,
  hint,
  size = 'md',
  id,
  ...rest
}: {
  label: ReactNode;
  hideLabel?: boolean;
  options: readonly SelectOption[];
  error?: string;
  hint?: ReactNode;
  size?: 'md' | 'sm';
} & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'size'>) {
  const generated = useId();
  const selectId = id ?? generated;
  const errorId = error ? `${selectId}-error` : undefined;
  return (
    <div className="field">
      <label className={hideLabel ? 'visually-hidden' : 'field-label'} htmlFor={selectId}>
        {label}
      </label>
      <select
        id={selectId}
        className={size === 'sm' ? 'select select-sm' : 'select'}
        aria-invalid={error ? true : undefined}
        aria-describedby={errorId}
        {...rest}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {hint ? <p className="field-hint">{hint}</p> : null}
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
