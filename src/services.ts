import type { EventLog } from './ports/event-log.ts';
import type { DocumentStore } from './ports/read-models.ts';
import type { SearchIndex } from './ports/search.ts';
import type { JobQueue } from './ports/jobs.ts';
import type { Outbox } from './ports/outbox.ts';
import type { FileStore } from './ports/files.ts';
import type { RateLimiter } from './ports/rate-limit.ts';
import type { TokenService } from './security/tokens.ts';
import type { ProjectorRuntime } from './projector/runtime.ts';
import type { Logger } from './logger.ts';
import type { GeneratedFiles } from './generated-files.ts';
import type { OneTimeKeys } from './security/keys.ts';
import type { VatChecker } from './ports/vat.ts';
import type { Counters } from './counters.ts';
import type { StorageRoom } from './storage-room.ts';
import type { MailLinks } from './security/mail-links.ts';
import type { PushService } from './ports/push.ts';

/** Every engine and service of a process, built once by app/runtime.ts. HTTP handlers get a narrow, tenant-bound
 * part of it (src/http/operation.ts); background jobs and reactors take what they name from it. */
export interface Services {
  log: EventLog;
  documents: DocumentStore;
  search: SearchIndex;
  jobs: JobQueue;
  outbox: Outbox;
  files: FileStore;
  /** Files made from read models on first request and kept per version (PDFs). */
  generatedFiles: GeneratedFiles;
  limiter: RateLimiter;
  tokens: TokenService;
  /** One-time keys and codes (confirmation, password reset, phone verification). */
  keys: OneTimeKeys;
  /** The links mails carry: under PUBLIC_URL, and signed one-click unsubscribe links. */
  links: MailLinks;
  vat: VatChecker;
  /** Web Push (PUSH.md): the VAPID public key, the endpoint rules, and push messages queued as jobs. */
  push: PushService;
  projector: ProjectorRuntime;
  logger: Logger;
  /** Injected clock (tests move time). */
  now: () => Date;
  /** How long a command waits for its projections before answering (read your writes). */
  readYourWritesTimeoutMs: number;
  /** What features count of their decisions, for /metrics (noCounters when metrics are off). */
  counters: Counters;
  /** Whether the stores have room for writes: the record of a full disk (/readyz, /metrics, 503 storage-full). */
  storage: StorageRoom;
}
