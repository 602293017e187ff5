// Waiting in specs for what another process or a background job does: a check polled every 50 ms until it holds.

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The first truthy value `check` gives, or an error naming `what` after `ms`. */
export async function until<T>(
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  what: string,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await sleep(50);
  }
}
