// The reference bidder front end: plain TypeScript on the typed client (clients/typescript) and the public API only.
// It boots (token, language, dictionary, increments), draws the header, and shows one view per location hash:
// `#/` auctions, `#/auctions/{id}?q=` an auction's lots, `#/lots/{id}` a lot, `#/sign-in`, `#/my-bids`, and the
// account's views (account-menu.ts).
import { createBidderClient, ok } from '../../../clients/typescript/src/index.ts';
import { auctionView } from './auction-view.ts';
import { readConfig } from './config.ts';
import type { Context, MemberEvent, Standing, View } from './context.ts';
import { clockReader } from './clock.ts';
import { announce, focusHeading, h, setTitle } from './dom.ts';
import { homeView } from './home-view.ts';
import { browserLanguage, currentLanguage, loadDictionary, ownText, t } from './i18n.ts';
import { AuctionLive } from './live.ts';
import { lotView } from './lot-view.ts';
import { messageOf, notFound } from './messages.ts';
import { myBidsView } from './my-bids-view.ts';
import { pushIsOn, turnPushOff } from './push.ts';
import { Session } from './session.ts';
import { signInView } from './sign-in-view.ts';
import { ACCOUNT_ROUTES, drawAccountMenu } from './account-menu.ts';
import { forgetReminders } from './reminders.ts';

const LANGUAGE_KEY = 'bidder-web.language';
const main = document.getElementById('main')!;
// Until the house's dictionary is loaded: the page's own words in the browser's language.
const startLanguage = browserLanguage(localStorage.getItem(LANGUAGE_KEY));
document.documentElement.lang = startLanguage;
main.querySelector('.loading')!.textContent = ownText('web.loading', startLanguage);
document.getElementById('account-nav')!.setAttribute('aria-label', ownText('web.accountMenu', startLanguage));
document.getElementById('house')!.textContent = document.title = ownText('web.house', startLanguage);
document.querySelector('.skip')!.textContent = ownText('web.skip', startLanguage);

const ROUTES: Array<{ pattern: RegExp; view: View }> = [
  { pattern: /^#?\/?$/, view: homeView },
  { pattern: /^#\/auctions\/(\d+)$/, view: auctionView },
  { pattern: /^#\/lots\/(\d+)$/, view: lotView },
  { pattern: /^#\/sign-in$/, view: signInView },
  { pattern: /^#\/my-bids$/, view: myBidsView },
  ...ACCOUNT_ROUTES,
];

async function boot() {
  const config = readConfig();
  const client = createBidderClient({ baseUrl: config.baseUrl, apiKey: config.apiKey });
  // Countdowns run on the service's clock, read from every answer's Date.
  client.use(clockReader());
  const memberListeners = new Set<(event: MemberEvent) => void>();
  const standings = new Map<number, Standing>();
  const titles = new Map<number, string>();
  const titleOf = async (lotId: number) => {
    if (!titles.has(lotId)) titles.set(lotId, ok(await client.GET('/v1/lots/{id}', { params: { path: { id: lotId } } })).Title);
    return titles.get(lotId)!;
  };

  /** The member's own events: their standing kept, said aloud, and handed to the view. */
  const onMemberEvent = async (event: MemberEvent) => {
    if ('LotId' in event.data && event.type !== 'registration') {
      const standing = event.type as Standing;
      standings.set(event.data.LotId, standing);
      const title = await titleOf(event.data.LotId).catch(() => '');
      if (standing === 'outbid') announce(t('message.outbid', { title }), true);
      else if (standing === 'leading') announce(t('message.highestBidder'));
      else announce(t(standing === 'won' ? 'web.won' : 'web.lost', { title }));
    } else if (event.type === 'registration') announce(t('web.registration', { status: t(`status.${event.data.Status}`) }));
    memberListeners.forEach((listener) => listener(event));
  };
  const session = new Session(client, config.tenant, {
    on: {
      outbid: (data) => void onMemberEvent({ type: 'outbid', data }),
      leading: (data) => void onMemberEvent({ type: 'leading', data }),
      won: (data) => void onMemberEvent({ type: 'won', data }),
      lost: (data) => void onMemberEvent({ type: 'lost', data }),
      registration: (data) => void onMemberEvent({ type: 'registration', data }),
    },
    // Missed member events: the view in place reads its standing again.
    onResync: () => void show(),
  });
  await session.start();

  const languages = ok(await client.GET('/v1/languages'));
  const codes = languages.map((l) => l.Code);
  const wanted = [localStorage.getItem(LANGUAGE_KEY) ?? '', ...navigator.languages.map((l) => l.slice(0, 2))].find((c) =>
    codes.includes(c),
  );
  await loadDictionary(client, wanted ?? languages.find((l) => l.IsDefault)?.Code ?? codes[0]);
  const increments = ok(await client.GET('/v1/increments'));

  let stop: () => void = () => undefined;
  const context: Context = {
    client,
    session,
    live: new AuctionLive(client),
    increments,
    titles,
    standings,
    onMemberEvent(listener) {
      memberListeners.add(listener);
      return () => memberListeners.delete(listener);
    },
    setStanding(lotId, standing) {
      standings.set(lotId, standing);
    },
    navigate(hash) {
      if (location.hash === hash) void show();
      else location.hash = hash;
    },
  };

  // The header: language, who is signed in, sign in and out.
  const select = document.getElementById('language') as HTMLSelectElement;
  select.replaceChildren(...languages.map((l) => h('option', { value: l.Code, lang: l.Code }, l.Name)));
  select.addEventListener('change', async () => {
    localStorage.setItem(LANGUAGE_KEY, select.value);
    await loadDictionary(client, select.value);
    await show(false);
  });
  document.getElementById('sign-out')!.addEventListener('click', async () => {
    // This device stops getting the member's pushes: the next one to sign in here is someone else, perhaps.
    if (await pushIsOn()) await turnPushOff(client).catch(() => undefined);
    forgetReminders();
    await session.signOut();
    context.navigate('#/');
  });
  const drawHeader = () => {
    select.value = currentLanguage();
    document.getElementById('house')!.textContent = t('web.house');
    document.title = t('web.house');
    document.getElementById('account-nav')!.setAttribute('aria-label', t('web.accountMenu'));
    drawAccountMenu(session.member !== null);
    document.getElementById('language-label')!.textContent = t('label.language');
    document.querySelector('.skip')!.textContent = t('web.skip');
    const member = session.member;
    const who = document.getElementById('who')!;
    who.textContent = member ? t('web.signedInAs', { email: member.email }) : '';
    const signInLink = document.getElementById('sign-in') as HTMLAnchorElement;
    signInLink.hidden = member !== null;
    signInLink.textContent = t('button.signIn');
    signInLink.href = `#/sign-in?next=${encodeURIComponent(location.hash.startsWith('#/sign-in') ? '#/' : location.hash || '#/')}`;
  };
  session.onChange(drawHeader);

  /** Draws the view of the location hash; `focus`: moves the focus to its heading (not on a language change). */
  async function show(focus = true) {
    stop();
    stop = () => undefined;
    drawHeader();
    const [path, query] = location.hash.split('?');
    const route = ROUTES.find((r) => r.pattern.test(path));
    const params = new URLSearchParams(query ?? '');
    const id = route ? route.pattern.exec(path)?.[1] : undefined;
    if (id) params.set('id', id);
    main.setAttribute('aria-busy', 'true');
    try {
      setTitle(document.getElementById('house')?.textContent ?? '');
      if (!route) {
        showNotFound();
        return;
      }
      stop = await route.view(context, main, params);
      if (focus) focusHeading(main);
    } catch (error) {
      if (notFound(error)) showNotFound();
      else {
        // The heading says it; the paragraph only when the problem has a message of its own.
        const message = messageOf(error);
        const generic = t('message.genericError');
        main.replaceChildren(h('h1', {}, generic), message !== generic ? h('p', { class: 'error', role: 'alert' }, message) : '');
        setTitle(generic);
        console.warn(error);
      }
      if (focus) focusHeading(main);
    } finally {
      main.removeAttribute('aria-busy');
    }
  }
  /** An unknown lot, auction or address: said once, with the way back to the auctions. */
  function showNotFound() {
    main.replaceChildren(
      h('h1', {}, t('web.notFound')),
      h('p', { id: 'not-found' }, t('web.notFoundText')),
      h('p', {}, h('a', { href: '#/' }, t('nav.auctions'))),
    );
    setTitle(t('web.notFound'));
  }
  window.addEventListener('hashchange', () => void show());
  await show(false);
}

boot().catch((error) => {
  main.replaceChildren(h('p', { class: 'error', role: 'alert' }, ownText('web.startFailed', document.documentElement.lang)));
  console.warn(error);
});
