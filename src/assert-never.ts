/** The end of an exhaustive `switch` (emmett's deciders): a case left out does not compile, and throws if reached. */
export function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}
