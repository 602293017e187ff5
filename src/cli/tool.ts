// How the analysts' tools end: bad input is one line on standard error and exit code 2, a failure exit code 1
// with its stack, otherwise the exit code the tool set.

/** Input the tool refuses: its message is the one line the user reads. */
export class BadInput extends Error {}

/** Runs a tool's main and exits with its outcome. */
export function runTool(name: string, main: () => Promise<number>): void {
  main()
    .then(
      (code) => code,
      (error: unknown) => {
        if (error instanceof BadInput) {
          process.stderr.write(`${name}: ${error.message}\n`);
          return 2;
        }
        process.stderr.write(`${name} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
        return 1;
      },
    )
    .then((code) => process.exit(code));
}
