// The header's account menu (the member's own pages, and signing out; or signing in and up) and the routes of the
// account's views: sign-up and confirmation, password reset, watchlist, won lots, invoices, notifications.
import type { View } from './context.ts';
import { t } from './i18n.ts';
import { invoicesView } from './invoices-view.ts';
import { notificationsView } from './notifications-view.ts';
import { passwordResetView } from './password-reset-view.ts';
import { confirmView, signUpView } from './sign-up-view.ts';
import { watchlistView } from './watchlist-view.ts';
import { wonView } from './won-view.ts';

export const ACCOUNT_ROUTES: Array<{ pattern: RegExp; view: View }> = [
  { pattern: /^#\/sign-up$/, view: signUpView },
  { pattern: /^#\/confirm$/, view: confirmView },
  { pattern: /^#\/password-reset$/, view: passwordResetView },
  { pattern: /^#\/watchlist$/, view: watchlistView },
  { pattern: /^#\/won$/, view: wonView },
  { pattern: /^#\/invoices$/, view: invoicesView },
  { pattern: /^#\/notifications$/, view: notificationsView },
];

/** Each entry of the menu: its element's id and the dictionary key of its text. */
const ENTRIES: Array<[string, string]> = [
  ['account-summary', 'nav.myPage'],
  ['my-bids', 'nav.myBids'],
  ['watchlist-link', 'nav.watchlist'],
  ['won-link', 'web.wonLots'],
  ['invoices-link', 'nav.invoices'],
  ['notifications-link', 'web.notifications'],
  ['sign-out', 'button.signOut'],
  ['sign-up', 'heading.createAccount'],
];

/** The menu in the chosen language, for a member or for a visitor; closed after each change of view. */
export function drawAccountMenu(signedIn: boolean) {
  for (const [id, key] of ENTRIES) document.getElementById(id)!.textContent = t(key);
  const menu = document.getElementById('account-menu') as HTMLDetailsElement;
  menu.hidden = !signedIn;
  menu.open = false;
  document.getElementById('sign-up')!.hidden = signedIn;
  for (const link of menu.querySelectorAll('a'))
    if (link.getAttribute('href') === location.hash) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
}
