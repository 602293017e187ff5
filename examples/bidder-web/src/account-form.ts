// The pieces the account's forms share: a labelled field with an optional hint, and a form that reports what went
// wrong in an alert and disables its button while the call is under way.
import { h } from './dom.ts';
import { messageOf } from './messages.ts';

type InputAttributes = Record<string, string | boolean>;

/** A label, its input and an optional hint the input names (`aria-describedby`). */
export function field(id: string, label: string, attributes: InputAttributes, hint?: string) {
  const input = h('input', { id, name: id, required: true, ...attributes, 'aria-describedby': hint ? `${id}-hint` : null });
  const parts = [h('label', { for: id }, label), input, hint ? h('p', { id: `${id}-hint`, class: 'meta' }, hint) : null];
  return { input, parts };
}

/** A form of fields and a submit button; `submit` runs on sending, its failure shown in the form's alert. */
export function accountForm(id: string, button: string, parts: Array<Node | null>, submit: () => Promise<void>): HTMLFormElement {
  const error = h('p', { id: `${id}-error`, class: 'error', role: 'alert' });
  const send = h('button', { type: 'submit' }, button);
  const form = h('form', { id, class: 'stack', novalidate: true }, ...parts, send, error);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    send.disabled = true;
    try {
      await submit();
    } catch (failure) {
      error.textContent = messageOf(failure);
      form.querySelector<HTMLInputElement>('input:not([type=hidden])')?.focus();
    } finally {
      send.disabled = false;
    }
  });
  return form;
}

/** A status paragraph (said politely) with an optional link after it. */
export const notice = (id: string, text: string, link?: { href: string; text: string }) =>
  h('p', { id, class: 'notice', role: 'status' }, text, link ? ' ' : null, link ? h('a', { href: link.href }, link.text) : null);
