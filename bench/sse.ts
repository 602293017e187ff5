// Server-sent-event subscribers for the bench: many streams on one agent, each event handed to a callback.
import http from 'node:http';

/**
 * Opens `count` GETs of `url` as event streams (resolves once every one answered 200); onEvent(subscriber,
 * type, data) per event, comments (heartbeats) skipped. Returns the close.
 */
export async function subscribe(
  url: string,
  headers: Record<string, string>,
  count: number,
  onEvent: (i: number, type: string, data: string) => void,
): Promise<() => void> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const requests: http.ClientRequest[] = [];
  await Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          // A hundred streams per client address (127.0.0.1, .2, …: all loopback), as many browsers would hold
          // them: the service lets one address hold at most 100 auction streams of a house.
          const localAddress = `127.0.0.${1 + Math.floor(i / 100)}`;
          const req = http.get(url, { agent, headers, localAddress }, (res) => {
            if (res.statusCode !== 200) return reject(new Error(`stream ${i}: ${res.statusCode}`));
            let buffer = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              buffer += chunk;
              let end: number;
              while ((end = buffer.indexOf('\n\n')) >= 0) {
                const block = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                if (block.startsWith(':')) continue;
                const type = /^event: (.*)$/m.exec(block)?.[1] ?? '';
                onEvent(i, type, /^data: (.*)$/m.exec(block)?.[1] ?? '');
              }
            });
            resolve();
          });
          req.on('error', reject);
          requests.push(req);
        }),
    ),
  );
  return () => {
    for (const req of requests) req.destroy();
    agent.destroy();
  };
}
