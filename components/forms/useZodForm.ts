'use client';

import { useCallback, useMemo, useState } from 'react';
import type { z } from 'zod';
import { appErrorOf } from '../trpc/errors';

export type FieldErrors<Input extends string = string> = Partial<Record<Input, string>>;

/** Messages about 'scopes.2' belong to the scopes input: forms have one input per top-level field. */
function inputOf(path: string): string {
  return path.split('.')[0]!;
}

/**
 * Validation state of one form whose inputs are the fields of `schema`. `parse` runs the server's
 * own zod schema before anything is sent; `fail` shows why the server refused, each message about
 * one of the form's inputs on that input and anything else above the form.
 */
export function useZodForm<Schema extends z.ZodObject>(schema: Schema) {
  type Input = Extract<keyof z.input<Schema>, string>;
  const inputs = useMemo(() => new Set(Object.keys(schema.shape)), [schema]);
  const [errors, setErrors] = useState<FieldErrors<Input>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [docsUrl, setDocsUrl] = useState<string | null>(null);

  const parse = useCallback(
    (values: unknown): z.output<Schema> | null => {
      const result = schema.safeParse(values);
      setFormError(null);
      setDocsUrl(null);
      if (result.success) {
        setErrors({});
        return result.data;
      }
      const next: FieldErrors = {};
      for (const issue of result.error.issues) {
        const input = issue.path.length > 0 ? String(issue.path[0]) : '';
        if (input && next[input] === undefined) next[input] = issue.message;
        else if (!input) setFormError(issue.message);
      }
      setErrors(next);
      return null;
    },
    [schema],
  );

  const fail = useCallback(
    (error: unknown) => {
      const refusal = appErrorOf(error);
      const inline: FieldErrors = {};
      const elsewhere: string[] = [];
      for (const [path, message] of Object.entries(refusal.fields ?? {})) {
        const input = inputOf(path);
        if (!inputs.has(input)) elsewhere.push(`${path}: ${message}`);
        else if (inline[input] === undefined) inline[input] = message;
      }
      setErrors(inline);
      setFormError(Object.keys(inline).length === 0 ? refusal.message : elsewhere.length > 0 ? elsewhere.join('; ') : null);
      setDocsUrl(refusal.docsUrl ?? null);
    },
    [inputs],
  );

  const clear = useCallback(() => {
    setErrors({});
    setFormError(null);
    setDocsUrl(null);
  }, []);

  return { errors, formError, docsUrl, parse, fail, clear };
}
