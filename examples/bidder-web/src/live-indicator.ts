// Whether what the page shows is live: the auction stream's state (and the browser's network), said in a status line
// that is announced politely when it changes.
import type { StreamState } from '../../../clients/typescript/src/index.ts';
import { h } from './dom.ts';
import { t } from './i18n.ts';
import type { AuctionLive } from './live.ts';

type Shown = 'live' | 'connecting' | 'offline';

const shownOf = (state: StreamState): Shown =>
  !navigator.onLine || state === 'reconnecting' || state === 'closed' ? 'offline' : state === 'open' ? 'live' : 'connecting';

/** The indicator of the followed auction's stream, and what stops it. */
export function liveIndicator(live: AuctionLive): { element: HTMLElement; stop: () => void } {
  const element = h('p', { id: 'live-status', class: 'live-status', role: 'status', 'data-state': 'connecting' });
  const draw = () => {
    const shown = shownOf(live.state);
    if (element.dataset.state === shown && element.textContent) return;
    element.dataset.state = shown;
    element.textContent = t(`web.live.${shown}`);
  };
  const stopWatching = live.watchState(draw);
  window.addEventListener('online', draw);
  window.addEventListener('offline', draw);
  return {
    element,
    stop: () => {
      stopWatching();
      window.removeEventListener('online', draw);
      window.removeEventListener('offline', draw);
    },
  };
}
