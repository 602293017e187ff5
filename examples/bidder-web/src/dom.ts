// A small element builder (no framework) and the page's two live regions.

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** `h('button', { type: 'button', onclick: f }, 'Text')`: attributes (`on…` are listeners, `false`/null left out). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Element, ...children: Child[]) {
  for (const child of children)
    if (child !== null && child !== undefined && child !== false) parent.append(child instanceof Node ? child : String(child));
}

/** Says a text to screen readers: `urgent` interrupts (being outbid), else it waits its turn (a lead, a bid). */
export function announce(text: string, urgent = false) {
  const region = document.getElementById(urgent ? 'announce-urgent' : 'announce-polite')!;
  // Emptied first, so the same text said twice is said again.
  region.textContent = '';
  setTimeout(() => (region.textContent = text), 50);
}

/** Puts the keyboard focus on the view's heading after a change of view, for keyboard and screen reader users. */
export function focusHeading(root: Element) {
  const heading = root.querySelector<HTMLElement>('h1');
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus();
}

/** The document's title for a view: what it shows, then the house (as the header names it). */
export function setTitle(text: string) {
  const house = document.getElementById('house')?.textContent?.trim();
  document.title = house && house !== text ? `${text} – ${house}` : text;
}
