// The notifications specs' given events (projection and reminders reactor): one subscription to lot 412's end, and
// events recorded as the log would, at positions counted from 1 after each `resetPositions()`.
import type { RecordedEvent } from '../../src/ports/event-log.ts';

export const at = '2026-11-22T10:00:00.000Z';
/** The subscription's id. */
export const id = '7d9f1c2e-4b3a-4e5f-9a8b-0c1d2e3f4a5b';

let position = 0;
/** The position of the last event recorded. */
export const lastPosition = () => position;
export const resetPositions = () => {
  position = 0;
};

export const recorded = (type: string, data: Record<string, unknown>, streamId = `notification-demo-${id}`): RecordedEvent => ({
  type,
  version: 1,
  data,
  metadata: { tenant: 'demo' },
  streamId,
  revision: 0,
  position: ++position,
  created: at,
});

export const subscribed = () =>
  recorded('NotificationSubscribed', {
    tenant: 'demo',
    subscriptionId: id,
    memberId: 1,
    lotId: 412,
    minutesBefore: 30,
    channel: 'email',
    lotEndTime: '2026-11-22T18:00:00.000Z',
    clientEndTime: null,
    at,
  });

export const lotCatalogued = () =>
  recorded('LotCatalogued', { tenant: 'demo', lotId: 412, endTime: '2026-11-22T19:00:00.000Z' }, 'lot-demo-412');
