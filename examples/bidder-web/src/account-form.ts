// The pieces the account's forms share: a labelled field with an optional hint, and a form that reports what went
// wrong in an alert (marking a refused value's input) and disables its button while the call is under way.
import { ProblemError } from '../../../clients/typescript/src/index.ts';
import { h } from './dom.ts';
import { messageOf } from './messages.ts';

type InputAttributes = Record<string, string | boolean>;

/** A label, its input (`apiField`: the body's field it fills) and an optional hint the input names (`aria-describedby`). */
export function field(id: string, apiField: string, label: string, attributes: InputAttributes, hint?: string) {
  const input = h('input', {
    id,
    name: id,
    required: true,
    ...attributes,
    'data-field': `body.${apiField}`,
    'aria-describedby': hint ? `${id}-hint` : null,
  });
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
      showFailure(form, error, failure);
    } finally {
      send.disabled = false;
    }
  });
  return form;
}

/**
 * What went wrong, in the form's alert: a refused value marks its input invalid and takes the focus, and the alert
 * says the input's hint when it has one (the rules of a password); anything else is the problem's message.
 */
function showFailure(form: HTMLFormElement, alert: HTMLElement, failure: unknown) {
  const inputs = [...form.querySelectorAll<HTMLInputElement>('input')];
  for (const input of inputs) input.removeAttribute('aria-invalid');
  const refused = failure instanceof ProblemError ? (failure.problem.errors ?? []).map((e) => e.field) : [];
  const invalid = inputs.filter((input) => refused.includes(input.dataset.field ?? ''));
  for (const input of invalid) input.setAttribute('aria-invalid', 'true');
  const hint = invalid[0] && document.getElementById(`${invalid[0].id}-hint`);
  alert.textContent = hint ? hint.textContent : messageOf(failure);
  (invalid[0] ?? inputs[0])?.focus();
}

/** A status paragraph (said politely) with an optional link after it. */
export const notice = (id: string, text: string, link?: { href: string; text: string }) =>
  h('p', { id, class: 'notice', role: 'status' }, text, link ? ' ' : null, link ? h('a', { href: link.href }, link.text) : null);
