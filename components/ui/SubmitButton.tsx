'use client';

import type { ComponentProps } from 'react';
import { Button } from './Button';
import { useHydrated } from './useHydrated';

/**
 * The submit button of a form that JavaScript handles. It stays disabled until the page has
 * hydrated: a click before that would submit the form natively, putting its fields in the URL.
 */
export function SubmitButton({ disabled, ...rest }: Omit<ComponentProps<typeof Button>, 'type'>) {
  const hydrated = useHydrated();
  return <Button type="submit" disabled={disabled || !hydrated} {...rest} />;
}
