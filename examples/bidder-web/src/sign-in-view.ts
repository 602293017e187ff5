// Signing in with email and password; back to where the member came from (`next`) once done.
import type { View } from './context.ts';
import { h } from './dom.ts';
import { t } from './i18n.ts';
import { messageOf } from './messages.ts';

export const signInView: View = async ({ session, navigate }, root, params) => {
  const next = params.get('next') || '#/';
  const email = h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'username', required: true });
  const password = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const error = h('p', { id: 'sign-in-error', class: 'error', role: 'alert' });
  const submit = h('button', { type: 'submit' }, t('button.signIn'));
  const form = h(
    'form',
    { class: 'stack', novalidate: true },
    h('label', { for: 'email' }, t('label.email')),
    email,
    h('label', { for: 'password' }, t('label.password')),
    password,
    submit,
    error,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    submit.disabled = true;
    try {
      await session.signIn(email.value.trim(), password.value);
      navigate(next);
    } catch (failure) {
      error.textContent = messageOf(failure);
      password.value = '';
      password.focus();
    } finally {
      submit.disabled = false;
    }
  });
  root.replaceChildren(h('h1', {}, t('heading.signIn')), form);
  return () => undefined;
};
