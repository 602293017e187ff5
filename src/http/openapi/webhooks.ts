// The back office's webhook delivery in its document (OpenAPI 3.1 `webhooks`): what the service POSTs to a
// registered Url, and when a failed delivery is tried again.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Operation } from '../operation.ts';
import { FEED_ITEM_EXAMPLE, ref } from './components.ts';

/** The retries of a failed delivery (BACKOFFICE.md "Webhooks"; the dispatcher's RETRY_SCHEDULE_MS). */
export const RETRY_SCHEDULE_TEXT = '5 seconds, 5 minutes, 30 minutes, 2 hours, 5 hours, 10 hours and 10 hours';

/**
 * The webhook delivery (OpenAPI 3.1 `webhooks`): what the service POSTs to a registered `Url`. Its body is the
 * feed's item, so it is described where the feed's operations put `FeedItem` in the document.
 */
export function registerDeliveryWebhook(registry: OpenAPIRegistry, operations: readonly Operation[]) {
  if (!operations.some((op) => op.route.operationId === 'listBackOfficeEvents')) return;
  const header = (name: string, description: string, schema: object, example: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema,
    example,
  });
  registry.registerWebhook({
    method: 'post',
    path: 'eventDelivery',
    operationId: 'deliverEvent',
    tags: ['Back office'],
    summary: "An event delivered to a webhook's Url",
    description:
      "`POST` to the webhook's `Url`, one event at a time in log order, with the feed's item as the body (exactly as the feed gives it) and the Standard Webhooks headers. " +
      "Verify the signature over the raw body with any Standard Webhooks library and the webhook's `Secret`, and reject a `webhook-timestamp` far from now (the libraries allow 5 minutes). " +
      `Answer \`2xx\` within 10 seconds; anything else (a redirect included) is retried after ${RETRY_SCHEDULE_TEXT}, then the webhook is \`disabled\`. ` +
      'A delivery may come more than once (after a crash, or a replay): deduplicate by `webhook-id`.',
    parameters: [
      header(
        'webhook-id',
        "The event's `Id` (a uuid): the same on every try and replay of this event.",
        { type: 'string', format: 'uuid', maxLength: 36 },
        FEED_ITEM_EXAMPLE.Id,
      ),
      header(
        'webhook-timestamp',
        'When this try was signed, in Unix seconds.',
        { type: 'string', pattern: '^[0-9]{1,12}$', maxLength: 12 },
        '1795167001',
      ),
      header(
        'webhook-signature',
        "`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the webhook's `Secret` after `whsec_`.",
        { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}$', maxLength: 200 },
        'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
      ),
    ] as never,
    request: {
      body: {
        required: true,
        description:
          'The feed item of the event, as `GET /backoffice/v1/events` gives it. Verify the signature over these bytes as they came, before parsing them.',
        content: { 'application/json': { schema: ref('schemas', 'FeedItem') as never, example: FEED_ITEM_EXAMPLE } },
      },
    },
    responses: {
      '2XX': { description: 'Delivered: any `2xx` within 10 seconds (the answer is not read beyond 64 KB).' },
      default: {
        description: `Not delivered: any other status, a redirect, or no answer within 10 seconds. Tried again after ${RETRY_SCHEDULE_TEXT}; then the webhook is \`disabled\`.`,
      },
    },
  });
}
