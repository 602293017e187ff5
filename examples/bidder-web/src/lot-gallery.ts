// A lot's images: one large image, a row of thumbnails to choose it, and a zoom dialog (enlarged, panned by scrolling
// or dragging, the arrow keys for the other images). Only images from the origins the house names are loaded (the
// page's CSP allows no other); any other image, or one that fails to load, is a link.
import { h } from './dom.ts';
import { t } from './i18n.ts';

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/** Links to images the page may not load. */
const imageLinks = (urls: string[]) =>
  h(
    'ul',
    { class: 'links', id: 'image-links' },
    ...urls.map((url, i) => h('li', {}, h('a', { href: url, rel: 'noopener' }, `${t('link.image')} ${i + 1}`))),
  );

/** The gallery of `urls` for a lot titled `title`; null when it has no image. */
export function lotGallery(urls: string[], title: string, origins: string[]): HTMLElement | null {
  const web = urls.filter((url) => /^https?:\/\//i.test(url));
  const shown = web.filter((url) => origins.includes(originOf(url) ?? ''));
  const linked = web.filter((url) => !shown.includes(url));
  if (web.length === 0) return null;
  const section = h('section', { class: 'gallery', 'aria-label': t('web.images') });
  if (shown.length === 0) {
    section.append(imageLinks(linked));
    return section;
  }
  const alt = (i: number) => t('web.imageOf', { n: i + 1, count: shown.length, title });
  let current = 0;
  const large = h('img', { id: 'gallery-image', src: shown[0], alt: alt(0) });
  const open = h('button', { type: 'button', id: 'gallery-open', class: 'gallery-open', 'aria-label': t('web.zoom') }, large);
  const thumbs = shown.map((url, i) =>
    h(
      'button',
      { type: 'button', class: 'thumb', 'aria-label': alt(i), 'aria-pressed': String(i === 0), onclick: () => choose(i) },
      h('img', { src: url, alt: '' }),
    ),
  );
  const zoom = zoomDialog(shown, alt, () => current);
  const choose = (i: number) => {
    current = (i + shown.length) % shown.length;
    large.src = shown[current];
    large.alt = alt(current);
    thumbs.forEach((thumb, j) => thumb.setAttribute('aria-pressed', String(j === current)));
  };
  // An image the browser could not load becomes a link to it.
  large.addEventListener('error', () => open.replaceWith(imageLinks([shown[current]])));
  open.addEventListener('click', () => zoom.show(current, choose));
  section.append(
    open,
    shown.length > 1 ? h('div', { class: 'thumbs', role: 'group', 'aria-label': t('web.images') }, ...thumbs) : '',
    zoom.element,
  );
  if (linked.length) section.append(imageLinks(linked));
  return section;
}

/** The zoom dialog: the image enlarged in a scrolling frame, "previous", "next" and "close" (Escape closes too). */
function zoomDialog(urls: string[], alt: (i: number) => string, start: () => number) {
  const image = h('img', { id: 'zoom-image', alt: '' });
  const frame = h('div', { class: 'zoom-frame', tabindex: 0, 'aria-label': t('web.zoomFrame') }, image);
  const caption = h('p', { id: 'zoom-caption' });
  const button = (id: string, text: string, onclick: () => void) => h('button', { type: 'button', id, class: 'secondary', onclick }, text);
  // The middle of the enlarged image in view, once it is laid out.
  const center = () => {
    frame.scrollLeft = (frame.scrollWidth - frame.clientWidth) / 2;
    frame.scrollTop = (frame.scrollHeight - frame.clientHeight) / 2;
  };
  image.addEventListener('load', center);
  let index = 0;
  let chosen: (i: number) => void = () => undefined;
  const go = (i: number) => {
    index = (i + urls.length) % urls.length;
    image.src = urls[index];
    image.alt = alt(index);
    caption.textContent = alt(index);
    chosen(index);
  };
  const element = h(
    'dialog',
    { id: 'zoom', class: 'zoom', 'aria-labelledby': 'zoom-caption' },
    caption,
    frame,
    h(
      'div',
      { class: 'row' },
      urls.length > 1 ? button('zoom-previous', t('web.previousImage'), () => go(index - 1)) : '',
      urls.length > 1 ? button('zoom-next', t('web.nextImage'), () => go(index + 1)) : '',
      button('zoom-close', t('web.closeZoom'), () => element.close()),
    ),
  );
  element.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowRight') go(index + 1);
    else if (event.key === 'ArrowLeft') go(index - 1);
  });
  // Dragging pans the enlarged image (a mouse; touch screens scroll the frame themselves).
  let drag: { x: number; y: number } | null = null;
  frame.addEventListener('pointerdown', (event) => {
    if (event.pointerType === 'mouse') drag = { x: event.clientX, y: event.clientY };
  });
  frame.addEventListener('pointermove', (event) => {
    if (!drag) return;
    frame.scrollBy(drag.x - event.clientX, drag.y - event.clientY);
    drag = { x: event.clientX, y: event.clientY };
  });
  ['pointerup', 'pointerleave'].forEach((name) => frame.addEventListener(name, () => (drag = null)));
  return {
    element,
    show(i: number, onChoose: (i: number) => void) {
      chosen = onChoose;
      go(i ?? start());
      element.showModal();
      requestAnimationFrame(center);
    },
  };
}
