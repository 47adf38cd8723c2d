'use client';

import { useCallback, useState } from 'react';
import type { z } from 'zod';
import { appErrorOf } from '../trpc/errors';

export type FieldErrors = Partial<Record<string, string>>;

/**
 * Validation state of one form. `parse` runs the server's own zod schema before anything is sent;
 * `fail` shows why the server refused, inline on the field when the server named one of ours.
 */
export function useZodForm<Schema extends z.ZodType>(schema: Schema) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);

  const parse = useCallback(
    (values: unknown): z.output<Schema> | null => {
      const result = schema.safeParse(values);
      setFormError(null);
      if (result.success) {
        setErrors({});
        return result.data;
      }
      const next: FieldErrors = {};
      for (const issue of result.error.issues) {
        const field = issue.path.length > 0 ? String(issue.path[0]) : '';
        if (field && !next[field]) next[field] = issue.message;
        else if (!field) setFormError(issue.message);
      }
      setErrors(next);
      return null;
    },
    [schema],
  );

  const fail = useCallback((error: unknown, fields: readonly string[] = []) => {
    const { code, message } = appErrorOf(error);
    if (code === 'VALIDATION_ERROR') {
      const inline = fieldErrorsFromMessage(message, fields);
      if (inline) {
        setErrors(inline);
        return;
      }
    }
    setFormError(message);
  }, []);

  const clear = useCallback(() => {
    setErrors({});
    setFormError(null);
  }, []);

  return { errors, formError, parse, fail, clear };
}

/** "Validation failed: name: Too long; email: Invalid" → per-field messages, when every part names a known field. */
function fieldErrorsFromMessage(message: string, fields: readonly string[]): FieldErrors | null {
  const body = message.replace(/^Validation failed:\s*/, '');
  const result: FieldErrors = {};
  for (const part of body.split('; ')) {
    const match = /^([A-Za-z]+): (.+)$/.exec(part);
    if (!match || !fields.includes(match[1]!)) return null;
    result[match[1]!] = match[2];
  }
  return Object.keys(result).length > 0 ? result : null;
}
