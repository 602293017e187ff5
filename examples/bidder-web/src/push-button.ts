// The toggle of notifications on this device (push.ts), on a lot's page: offered after a bid or a watch (never at
// load: the browser's permission prompt comes when the member has a reason to want it), shown pressed at load when
// this device already has them, so that they can be turned off.
import type { Context } from './context.ts';
import { announce, h } from './dom.ts';
import { currentLanguage, t } from './i18n.ts';
import { messageOf } from './messages.ts';
import { pushAvailable, pushBlocked, pushIsOn, turnPushOff, turnPushOn } from './push.ts';

export function pushButton(context: Context): { element: HTMLElement; offer(): Promise<void>; showIfOn(): Promise<void> } {
  const button = h('button', { type: 'button', id: 'push-toggle', class: 'secondary', 'aria-pressed': 'false' }, t('web.notify'));
  const note = h('span', { class: 'meta', id: 'push-note' });
  const element = h('p', { id: 'push', hidden: true }, button, ' ', note);
  const show = (on: boolean) => {
    button.setAttribute('aria-pressed', String(on));
    button.hidden = pushBlocked();
    note.textContent = pushBlocked() ? t('web.notifyBlocked') : '';
    element.hidden = false;
  };
  button.addEventListener('click', async () => {
    const on = button.getAttribute('aria-pressed') === 'true';
    button.disabled = true;
    try {
      if (on) await turnPushOff(context.client);
      else await turnPushOn(context.client, currentLanguage());
      show(!on);
      announce(t(on ? 'web.notifyOff' : 'web.notifyOn'));
    } catch (error) {
      show(false);
      if (!pushBlocked())
        announce(error instanceof Error && error.message === 'notifications refused' ? t('web.notifyOff') : messageOf(error), true);
    } finally {
      button.disabled = false;
    }
  });
  return {
    element,
    async offer() {
      if (pushAvailable() && element.hidden) show(await pushIsOn());
    },
    async showIfOn() {
      if (pushAvailable() && (await pushIsOn())) show(true);
    },
  };
}
