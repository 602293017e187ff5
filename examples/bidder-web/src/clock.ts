// The service's clock as this page sees it: every answer's `Date` header (whole seconds) and the auction stream's
// bid times bound the offset from the browser's clock, so countdowns end when the service closes a lot, whatever
// time the device keeps.

/** Bounds of (service time − browser time), in ms: the service's clock read at the answer lies between them. */
let low = -Infinity;
let high = Infinity;

/** An answer's `Date` (second resolution) seen between `sentAt` and `receivedAt` (browser times). */
export function observeDate(header: string | null, sentAt: number, receivedAt: number) {
  const date = header ? Date.parse(header) : NaN;
  if (Number.isNaN(date)) return;
  // The service wrote [date, date + 1 s) at some browser time in [sentAt, receivedAt].
  narrow(date - receivedAt, date + 1000 - sentAt);
}

/** A time the service stamped (a bid's `PlacedAt`) before the browser received it at `receivedAt`. */
export function observeStamp(iso: string, receivedAt = Date.now()) {
  const stamp = Date.parse(iso);
  if (!Number.isNaN(stamp)) narrow(stamp - receivedAt, Infinity);
}

function narrow(lower: number, upper: number) {
  // Bounds that no longer meet (the device's clock was changed): start again from the newest.
  if (lower > high || upper < low) [low, high] = [lower, upper];
  else [low, high] = [Math.max(low, lower), Math.min(high, upper)];
}

/** The service's offset from the browser's clock (ms), the middle of what is known; 0 while nothing is. */
export function serverOffset(): number {
  if (low === -Infinity && high === Infinity) return 0;
  if (low === -Infinity) return high - 500;
  if (high === Infinity) return low;
  return (low + high) / 2;
}

/** Now on the service's clock (ms since the epoch). */
export const serverNow = () => Date.now() + serverOffset();

/** Reads every answer's `Date` through the client (`client.use(clockReader())`). */
export function clockReader() {
  const sent = new Map<string, number>();
  return {
    onRequest({ id }: { id: string }) {
      sent.set(id, Date.now());
      return undefined;
    },
    onResponse({ id, response }: { id: string; response: Response }) {
      const sentAt = sent.get(id);
      sent.delete(id);
      if (sentAt !== undefined) observeDate(response.headers.get('Date'), sentAt, Date.now());
      return undefined;
    },
  };
}
