/** A one-line progress bar on stderr (only when it is a terminal; otherwise a line every few seconds). */
export function progressBar(label: string, total: number) {
  const tty = process.stderr.isTTY;
  const started = Date.now();
  let lastPrint = 0;
  return {
    update(done: number) {
      const now = Date.now();
      if (!tty && now - lastPrint < 2000 && done < total) return;
      if (tty && now - lastPrint < 100 && done < total) return;
      lastPrint = now;
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      const width = 30;
      const filled = Math.round(ratio * width);
      const rate = done / Math.max(0.001, (now - started) / 1000);
      const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(1)}% ${done}/${total} ${Math.round(rate)}/s`;
      process.stderr.write(tty ? `\r${line}` : `${line}\n`);
    },
    done() {
      if (tty) process.stderr.write('\n');
    },
  };
}
