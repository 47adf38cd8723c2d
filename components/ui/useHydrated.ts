'use client';

import { useSyncExternalStore } from 'react';

const subscribeToNothing = () => () => {};

/**
 * False while the server's HTML is on screen, true once React has hydrated it. Controls that act
 * through JavaScript stay disabled until then: a click before hydration is lost, or worse, undone
 * as React restores the state it rendered.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}
