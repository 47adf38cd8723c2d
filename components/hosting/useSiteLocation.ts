'use client';

import { useSearchParams } from 'next/navigation';
import { isSiteTab, type SiteTab } from './hosting';

/**
 * The page's state in its address (`?tab=files&path=public_html&file=…`), so a tab, a folder or an
 * open file can be linked to and survives a reload. The History API keeps Next's search params in
 * step without asking the server for the page again.
 */
export function useSiteLocation() {
  const params = useSearchParams();
  const raw = params.get('tab');
  const tab: SiteTab = isSiteTab(raw) ? raw : 'overview';

  function update(changes: Record<string, string | null>, { push = false } = {}) {
    const next = new URLSearchParams(window.location.search);
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) next.delete(key);
      else next.set(key, value);
    }
    const query = next.toString();
    const url = `${window.location.pathname}${query ? `?${query}` : ''}`;
    if (push) window.history.pushState(null, '', url);
    else window.history.replaceState(null, '', url);
  }

  return { tab, params, update };
}
