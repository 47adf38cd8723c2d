import { AppError, type FieldErrors } from './errors';

const REASON = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/** PostgreSQL stores neither NUL nor unpaired surrogates in text: such a value is the caller's mistake, not ours. */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && value.isWellFormed();
}

/** Every string of an input (at any depth) that PostgreSQL could not store, by field path. */
export function unstorableFields(input: unknown, path = ''): FieldErrors {
  const found: FieldErrors = {};
  const visit = (value: unknown, at: string) => {
    if (typeof value === 'string') {
      if (!isStorableText(value)) found[at || 'input'] = REASON;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => visit(item, at ? `${at}.${index}` : String(index)));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (!isStorableText(key)) found[at || 'input'] = REASON;
        visit(item, at ? `${at}.${key}` : key);
      }
    }
  };
  visit(input, path);
  return found;
}

/** Refuses, with 422 naming the fields, an input that holds text PostgreSQL cannot store. */
export function refuseUnstorableText(input: unknown): void {
  const fields = unstorableFields(input);
  const names = Object.keys(fields);
  if (names.length === 0) return;
  throw new AppError('VALIDATION_ERROR', `Validation failed: ${names.map((name) => `${name}: ${REASON}`).join('; ')}`, { fields });
}
