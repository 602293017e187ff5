/**
 * The push outbox (PUSH.md): the VAPID key pair and the endpoint rules of this deployment, and messages queued as
 * background jobs, each sent to its subscriptions by src/adapters/delivery/web-push.ts.
 */
import type { JobQueue } from '../../ports/jobs.ts';
import type { EndpointVerdict, PushMessage, PushService } from '../../ports/push.ts';
import type { PushEndpoints } from '../../security/push-endpoints.ts';
import type { VapidKeys } from '../../security/vapid.ts';

export interface PushSettings {
  vapid: VapidKeys;
  /** VAPID_SUBJECT; null: `mailto:` the house's contact address. */
  subject: string | null;
  endpoints: PushEndpoints;
  /** The wait before a temporary failure's first retry (DELIVERY_FIRST_RETRY_MS, as mail's), doubling after. */
  firstRetryMs: number;
}

export class PushOutbox implements PushService {
  readonly publicKey: string;

  constructor(
    private readonly jobs: Pick<JobQueue, 'add'>,
    readonly settings: PushSettings,
  ) {
    this.publicKey = settings.vapid.publicKey;
  }

  checkEndpoint(endpoint: string): Promise<EndpointVerdict> {
    return this.settings.endpoints.check(endpoint);
  }

  async send(message: PushMessage): Promise<void> {
    void this.jobs;
    void message;
    throw new Error('push messages are not sent yet');
  }
}
