/**
 * Embedded Outbox: one JSON file per message in a directory (DATA_DIR/outbox/), named
 * `<channel>-<safe id>.json`. The id is kept when it is made of [A-Za-z0-9._-] only (and not longer than
 * 128 characters), otherwise replaced by its sha256 hex digest.
 *
 * A message is written to a hidden temp file (0600, fsynced) and then hard-linked to its final name, which
 * fails if that name exists: a reader never sees half a file, and two concurrent sends of one id deliver
 * once. Where the filesystem has no hard links, an existence check and a rename are used instead.
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { OutgoingMessage, Outbox } from '../../ports/outbox.ts';
import { makePrivateFolder, openPrivateFile } from '../../private-files.ts';

/** What an outbox file holds. */
export interface OutboxFile {
  Id: string;
  Channel: 'mail' | 'sms';
  Tenant: string;
  To: string;
  Subject: string | null;
  Body: string;
  ReplyTo: string | null;
  /** A notification mail's one-click unsubscribe link (the `List-Unsubscribe` SMTP would send); absent on other messages. */
  ListUnsubscribe?: string;
  /** ISO 8601, millisecond precision. */
  CreatedAt: string;
}

const SAFE_ID = /^[A-Za-z0-9._-]{1,128}$/;
const CHANNELS = new Set(['mail', 'sms']);
const FILE_NAME = /^(mail|sms)-.+\.json$/;

/** The id as it appears in the file name. */
export function safeOutboxId(id: string): string {
  return SAFE_ID.test(id) ? id : createHash('sha256').update(id, 'utf8').digest('hex');
}

/** The file name a message with this channel and id is written to. */
export function outboxFileName(channel: OutgoingMessage['channel'], id: string): string {
  return `${channel}-${safeOutboxId(id)}.json`;
}

export class FileOutbox implements Outbox {
  private ready: Promise<unknown> | undefined;

  constructor(private readonly dir: string) {
    if (typeof dir !== 'string' || dir === '') throw new TypeError('FileOutbox: dir is required');
  }

  async send(message: OutgoingMessage): Promise<{ delivered: boolean }> {
    validate(message);
    this.ready ??= makePrivateFolder(this.dir).catch((err) => {
      this.ready = undefined;
      throw err;
    });
    await this.ready;

    const name = outboxFileName(message.channel, message.id);
    const target = path.join(this.dir, name);
    if (await exists(target)) return { delivered: false };

    const content: OutboxFile = {
      Id: message.id,
      Channel: message.channel,
      Tenant: message.tenant,
      To: message.to,
      Subject: message.subject ?? null,
      Body: message.body,
      ReplyTo: message.replyTo ?? null,
      ...(message.unsubscribeUrl ? { ListUnsubscribe: message.unsubscribeUrl } : {}),
      CreatedAt: new Date().toISOString(),
    };
    const temp = path.join(this.dir, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}-${name}`);
    try {
      const handle = await openPrivateFile(temp, 'wx');
      try {
        await handle.writeFile(`${JSON.stringify(content, null, 2)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await fs.link(temp, target);
        return { delivered: true };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') return { delivered: false };
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
      }
      // No hard links here: check, then rename (not atomic against a concurrent send of the same id).
      if (await exists(target)) return { delivered: false };
      await fs.rename(temp, target);
      return { delivered: true };
    } finally {
      await fs.rm(temp, { force: true });
    }
  }
}

/** Every message in an outbox directory, oldest first (an absent directory is an empty outbox). */
export async function readOutbox(dir: string): Promise<OutboxFile[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const messages = await Promise.all(
    names
      .filter((name) => FILE_NAME.test(name))
      .map(async (name) => JSON.parse(await fs.readFile(path.join(dir, name), 'utf8')) as OutboxFile),
  );
  return messages.sort((a, b) => (a.CreatedAt < b.CreatedAt ? -1 : a.CreatedAt > b.CreatedAt ? 1 : a.Id < b.Id ? -1 : a.Id > b.Id ? 1 : 0));
}

function validate(message: OutgoingMessage): void {
  if (!message || typeof message !== 'object') throw new TypeError('FileOutbox: message is required');
  if (typeof message.id !== 'string' || message.id === '') throw new TypeError('FileOutbox: message.id is required');
  if (!CHANNELS.has(message.channel)) throw new TypeError(`FileOutbox: unknown channel "${String(message.channel)}"`);
  for (const field of ['tenant', 'to', 'body'] as const) {
    if (typeof message[field] !== 'string') throw new TypeError(`FileOutbox: message.${field} must be a string`);
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
