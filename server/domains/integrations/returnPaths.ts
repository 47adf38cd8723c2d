/** `path` with `name=value` added to its query: how a round trip tells the panel how it ended. */
export function withMarker(path: string, name: string, value: string): string {
  const url = new URL(path, 'http://return.invalid');
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}${url.hash}`;
}
