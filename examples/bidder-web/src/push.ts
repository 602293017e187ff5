// Notifications on this device (PUSH.md): the member turns them on after a bid or a watch (never at load), the page
// subscribes the browser with the service's VAPID key (GET /v1/push/key) and hands the subscription to the service
// (PUT /v1/me/push-subscriptions); turning them off removes it there and in the browser. The service worker (sw.ts)
// shows what is pushed.
import { ok, type BidderClient } from '../../../clients/typescript/src/index.ts';

/** The service's id of this device's subscription, with its endpoint. */
const KEPT = 'bidder-web.push-subscription';

interface Kept {
  id: string;
  endpoint: string;
}

const kept = (): Kept | null => {
  try {
    return JSON.parse(localStorage.getItem(KEPT) ?? 'null') as Kept | null;
  } catch {
    return null;
  }
};

/** Whether this browser can take pushes at all (a service worker, the Push API, notifications). */
export const pushAvailable = () => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/** Whether the member refused notifications in this browser (the button then says so instead). */
export const pushBlocked = () => pushAvailable() && Notification.permission === 'denied';

const registration = async () => {
  await navigator.serviceWorker.register('sw.js');
  return navigator.serviceWorker.ready;
};

/** Whether this device gets the member's pushes: the browser is subscribed and the service knows its subscription. */
export async function pushIsOn(): Promise<boolean> {
  if (!pushAvailable() || Notification.permission !== 'granted') return false;
  const subscription = await (await navigator.serviceWorker.getRegistration())?.pushManager.getSubscription();
  return subscription !== null && subscription !== undefined && kept()?.endpoint === subscription.endpoint;
}

/** The VAPID key as the browser takes it (the bytes of the base64url text). */
const keyBytes = (text: string) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

/** Asks the browser's permission, subscribes it and tells the service; throws when the member refuses. */
export async function turnPushOn(client: BidderClient, language: string): Promise<void> {
  if ((await Notification.requestPermission()) !== 'granted') throw new Error('notifications refused');
  const worker = await registration();
  const { PublicKey } = ok(await client.GET('/v1/push/key'));
  const subscription =
    (await worker.pushManager.getSubscription()) ??
    (await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(PublicKey) }));
  const { endpoint, expirationTime, keys } = subscription.toJSON();
  const answer = ok(
    await client.PUT('/v1/me/push-subscriptions', {
      body: {
        endpoint: endpoint!,
        expirationTime: expirationTime ?? null,
        keys: { p256dh: keys!.p256dh, auth: keys!.auth },
        Language: language,
      },
    }),
  );
  localStorage.setItem(KEPT, JSON.stringify({ id: answer.Id, endpoint: endpoint! } satisfies Kept));
}

/** Stops the pushes to this device: the service's subscription removed (gone already is fine), then the browser's. */
export async function turnPushOff(client: BidderClient): Promise<void> {
  const mine = kept();
  if (mine) {
    const answer = await client.DELETE('/v1/me/push-subscriptions/{id}', { params: { path: { id: mine.id } } });
    if (answer.response.status !== 404) ok(answer);
  }
  localStorage.removeItem(KEPT);
  await (await (await navigator.serviceWorker.getRegistration())?.pushManager.getSubscription())?.unsubscribe();
}
