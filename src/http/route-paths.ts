// An operation's route path as Express writes it, and whether a request's path matches one (the body checks and
// the answer to a method no operation has at a path use it).

/** `/v1/lots/{id}` as Express writes it: `/v1/lots/:id`. */
export const toExpressPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');

/** Whether a request path (trailing slashes ignored) matches an Express path with `:name` segments. */
export function matchPath(pattern: string, actual: string): boolean {
  const a = pattern.split('/');
  const b = actual.replace(/\/+$/, '').split('/');
  return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i]);
}
