// The member's notifications: pushes on this device (push.ts, the toggle of the lot page), and the lot-end reminders
// by e-mail set from this browser (reminders.ts), each of which can be taken back.
import type { View } from './context.ts';
import { announce, h, setTitle } from './dom.ts';
import { t } from './i18n.ts';
import { messageOf } from './messages.ts';
import { pushAvailable } from './push.ts';
import { pushButton } from './push-button.ts';
import { keptReminders, removeReminder, type Reminder } from './reminders.ts';
import { requireMember } from './won-view.ts';

export const notificationsView: View = async (context, root) => {
  if (!requireMember(context, '#/notifications')) return () => undefined;
  const push = pushButton(context);
  const list = h('ul', { id: 'reminders', class: 'lots' });
  const none = h('p', { id: 'no-reminders' }, t('web.notificationsNone'));
  const row = (reminder: Reminder) => {
    const remove = h('button', { type: 'button', class: 'secondary' }, t('web.reminderRemove'));
    const item = h(
      'li',
      { 'data-lot': reminder.lotId },
      h('a', { href: `#/lots/${reminder.lotId}` }, reminder.title),
      h('span', { class: 'actions' }, remove),
    );
    remove.addEventListener('click', async () => {
      try {
        await removeReminder(context.client, reminder);
        item.remove();
        none.hidden = list.childElementCount > 0;
        announce(t('web.reminderRemoved'));
      } catch (error) {
        announce(messageOf(error), true);
      }
    });
    return item;
  };
  const reminders = keptReminders();
  list.append(...reminders.map(row));
  none.hidden = reminders.length > 0;
  root.replaceChildren(
    h('h1', {}, t('web.notifications')),
    h(
      'section',
      { class: 'account-section', 'aria-labelledby': 'device-heading' },
      h('h2', { id: 'device-heading' }, t('web.notificationsDevice')),
      pushAvailable() ? push.element : h('p', {}, t('web.notifyOff')),
    ),
    h(
      'section',
      { class: 'account-section', 'aria-labelledby': 'reminders-heading' },
      h('h2', { id: 'reminders-heading' }, t('web.notificationsReminders')),
      h('p', { class: 'meta' }, t('web.notificationsRemindersText'), ' ', h('a', { href: '#/watchlist' }, t('nav.watchlist'))),
      list,
      none,
    ),
  );
  await push.offer();
  setTitle(t('web.notifications'));
  return () => undefined;
};
