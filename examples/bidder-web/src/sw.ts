// The page's service worker (served as /demo/sw.js): shows each push as a notification (its title, body and tag, so
// a newer push of the same lot replaces the older one) and, on a click, brings a window of the page to the lot.
// It runs in the worker's own scope; the few types of it used here are declared below (the page's DOM types lack them).

interface PushPayload {
  title?: string;
  body?: string;
  tag?: string;
  url?: string;
}
interface ExtendableEventLike extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface PushEventLike extends ExtendableEventLike {
  data: { json(): unknown } | null;
}
interface NotificationEventLike extends ExtendableEventLike {
  notification: Notification;
}
interface WindowClientLike {
  url: string;
  focus(): Promise<unknown>;
  navigate(url: string): Promise<unknown>;
}
interface WorkerScope {
  registration: ServiceWorkerRegistration;
  clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClientLike[]>;
    openWindow(url: string): Promise<unknown>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: string, listener: (event: never) => void): void;
}

const scope = globalThis as unknown as WorkerScope;

scope.addEventListener('install', () => void scope.skipWaiting());
scope.addEventListener('activate', (event: ExtendableEventLike) => event.waitUntil(scope.clients.claim()));

scope.addEventListener('push', (event: PushEventLike) => {
  let payload: PushPayload = {};
  try {
    payload = (event.data?.json() ?? {}) as PushPayload;
  } catch {
    // Not JSON: shown without a text of its own.
  }
  event.waitUntil(
    scope.registration.showNotification(payload.title ?? '', {
      body: payload.body ?? '',
      tag: payload.tag,
      data: { url: payload.url ?? '' },
    }),
  );
});

/** A window of the page taken to the lot (the push's `url`, under this worker's scope), or a new one. */
async function openLot(url: string) {
  const target = new URL(url, scope.registration.scope).href;
  const windows = await scope.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const mine = windows.find((w) => w.url.startsWith(scope.registration.scope));
  if (!mine) return scope.clients.openWindow(target);
  await mine.focus().catch(() => undefined); // refused without the click's user activation (a test's dispatch)
  return mine.navigate(target);
}

scope.addEventListener('notificationclick', (event: NotificationEventLike) => {
  event.notification.close();
  const data = event.notification.data as { url?: string } | null;
  event.waitUntil(openLot(data?.url ?? ''));
});
