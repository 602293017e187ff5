import { catalogueEvents } from '../../commands/catalogue/events.ts';
import { contactEvents } from '../../commands/contact/events.ts';
import { memberEvents } from '../../commands/members/events.ts';
import { termsEvents } from '../../commands/terms/events.ts';
import { watchlistEvents } from '../../commands/watchlist/events.ts';
import { documentEvents } from '../../commands/documents/events.ts';
import { translationEvents } from '../../commands/translations/events.ts';
import { profileEvents } from '../../commands/profile/events.ts';
import { phoneVerificationEvents } from '../../commands/phone-verification/events.ts';
import { registrationsEvents } from '../../commands/registrations/events.ts';
import { identityDocumentsEvents } from '../../commands/identity-documents/events.ts';
import { invoicesEvents } from '../../commands/invoices/events.ts';
import { notificationsEvents } from '../../commands/notifications/events.ts';
import type { EventOf } from './define.ts';

/** Every event type of the public contract, in the order docs/events.md lists them. */
export const eventCatalog = [
  ...catalogueEvents,
  ...documentEvents,
  ...translationEvents,
  ...memberEvents,
  ...profileEvents,
  ...phoneVerificationEvents,
  ...registrationsEvents,
  ...identityDocumentsEvents,
  ...invoicesEvents,
  ...notificationsEvents,
  ...watchlistEvents,
  ...termsEvents,
  ...contactEvents,
] as const;

export type AppEvent = EventOf<(typeof eventCatalog)[number]>;
export type AppEventType = AppEvent['type'];
