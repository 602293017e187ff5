// Lot-end reminders by e-mail (POST and DELETE /v1/me/notifications): the API answers a reminder's id and lists none,
// so this browser keeps the ids of the reminders it set, by lot, to show them and take them back.
import { ok, type BidderClient } from '../../../clients/typescript/src/index.ts';

const KEY = 'bidder-web.reminders';
/** An hour before the lot's end. */
const MINUTES_BEFORE = 60;
const EMAIL = 1;

export interface Reminder {
  id: string;
  lotId: number;
  title: string;
}

export function keptReminders(): Reminder[] {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '[]') as Reminder[];
  } catch {
    return [];
  }
}

const keep = (reminders: Reminder[]) => localStorage.setItem(KEY, JSON.stringify(reminders));

export const reminderOf = (lotId: number) => keptReminders().find((r) => r.lotId === lotId) ?? null;

export async function setReminder(client: BidderClient, lot: { Id: number; Title: string; EndTime: string }): Promise<Reminder> {
  const { Id } = ok(
    await client.POST('/v1/me/notifications', {
      body: { GeneralId: lot.Id, SendTime: MINUTES_BEFORE, Type: EMAIL, EndDateTime: lot.EndTime },
    }),
  );
  const reminder = { id: Id, lotId: lot.Id, title: lot.Title };
  keep([...keptReminders().filter((r) => r.lotId !== lot.Id), reminder]);
  return reminder;
}

/** Takes a reminder back; one the service no longer has (sent, or removed elsewhere) is forgotten as well. */
export async function removeReminder(client: BidderClient, reminder: Reminder): Promise<void> {
  const answer = await client.DELETE('/v1/me/notifications/{id}', { params: { path: { id: reminder.id } } });
  if (answer.response.status !== 404) ok(answer);
  keep(keptReminders().filter((r) => r.id !== reminder.id));
}

/** Forgets every reminder (signing out: the next member of this browser has their own). */
export const forgetReminders = () => localStorage.removeItem(KEY);
