/**
 * A TCP server on 127.0.0.1 that speaks just enough of MongoDB's wire protocol to be taken for a one-node replica
 * set (OP_QUERY and OP_MSG: https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/), then stops
 * answering: a mongod that accepts connections and never answers (frozen, its disk hung). Until `hang()`, it answers
 * the handshake and monitoring `hello`, `create` and `createIndexes` with ok, and a `find` with an empty cursor;
 * after, it answers `hello` only (the driver's monitor keeps seeing a primary), every other command never.
 * `slowIndexBuildsMs` delays the answer to `createIndexes` (an index build that takes its time).
 */
import net from 'node:net';
import { BSON, Long, ObjectId } from 'mongodb';

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;

export interface HungMongo {
  url: string;
  /** From now on, every command but `hello` is never answered. */
  hang(): void;
  /** Commands received (their names), in order. */
  commands: string[];
  slowIndexBuildsMs: number;
  close(): Promise<void>;
}

function header(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(16);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(requestId, 4);
  buffer.writeInt32LE(responseTo, 8);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

/** The command document of a request: OP_QUERY's query, or OP_MSG's body section (kind 0). */
function commandOf(opCode: number, body: Buffer): Record<string, unknown> | null {
  if (opCode === OP_QUERY) {
    let at = 4; // flags
    at = body.indexOf(0, at) + 1; // fullCollectionName
    at += 8; // numberToSkip, numberToReturn
    return BSON.deserialize(body.subarray(at, at + body.readInt32LE(at)));
  }
  if (opCode === OP_MSG) {
    let at = 4; // flagBits
    while (at < body.length) {
      const kind = body[at];
      at += 1;
      const size = body.readInt32LE(at);
      if (kind === 0) return BSON.deserialize(body.subarray(at, at + size));
      at += size;
    }
  }
  return null;
}

function reply(opCode: number, requestId: number, document: Record<string, unknown>): Buffer {
  const bson = Buffer.from(BSON.serialize(document));
  if (opCode === OP_QUERY) {
    const fields = Buffer.alloc(20); // responseFlags, cursorID (int64), startingFrom, numberReturned
    fields.writeInt32LE(1, 16);
    return Buffer.concat([header(16 + 20 + bson.length, 0, requestId, OP_REPLY), fields, bson]);
  }
  const flags = Buffer.alloc(5); // flagBits 0, section kind 0
  return Buffer.concat([header(16 + 5 + bson.length, 0, requestId, OP_MSG), flags, bson]);
}

/** The answer to a command: a primary's hello; until hung, ok (an empty cursor for a read); after, none. */
function answerTo(
  me: string,
  name: string,
  command: Record<string, unknown>,
  connectionId: number,
  hang: boolean,
): Record<string, unknown> | null {
  if (['hello', 'isMaster', 'ismaster'].includes(name))
    return {
      helloOk: true,
      isWritablePrimary: true,
      ismaster: true,
      setName: 'rs0',
      setVersion: 1,
      electionId: new ObjectId('7fffffff0000000000000001'),
      hosts: [me],
      primary: me,
      me,
      maxBsonObjectSize: 16 * 1024 * 1024,
      maxMessageSizeBytes: 48_000_000,
      maxWriteBatchSize: 100_000,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: 30,
      connectionId,
      minWireVersion: 0,
      maxWireVersion: 21,
      readOnly: false,
      ok: 1,
    };
  if (hang) return null;
  if (name === 'find' || name === 'aggregate' || name === 'listIndexes')
    return { cursor: { id: Long.fromNumber(0), ns: `bidder.${String(command[name])}`, firstBatch: [] }, ok: 1 };
  return { ok: 1 };
}

export async function startHungMongo(): Promise<HungMongo> {
  let hung = false;
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const commands: string[] = [];
  const state = { slowIndexBuildsMs: 0 };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    const connectionId = ++connections;
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 16 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const requestId = pending.readInt32LE(4);
        const opCode = pending.readInt32LE(12);
        const command = commandOf(opCode, pending.subarray(16, length));
        pending = pending.subarray(length);
        if (!command) continue;
        const name = Object.keys(command)[0];
        commands.push(name);
        const answer = answerTo(me, name, command, connectionId, hung);
        if (!answer) continue; // hung: never answered
        const send = () => socket.writable && socket.write(reply(opCode, requestId, answer));
        if (name === 'createIndexes' && state.slowIndexBuildsMs > 0) setTimeout(send, state.slowIndexBuildsMs);
        else send();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const me = `127.0.0.1:${port}`;

  return {
    url: `mongodb://${me}/bidder?directConnection=true`,
    hang: () => (hung = true),
    commands,
    get slowIndexBuildsMs() {
      return state.slowIndexBuildsMs;
    },
    set slowIndexBuildsMs(ms: number) {
      state.slowIndexBuildsMs = ms;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
