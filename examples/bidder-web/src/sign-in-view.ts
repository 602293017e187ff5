// Signing in with email and password; back to where the member came from (`next`) once done. The ways to an
// account from here: signing up, a forgotten password, confirming the address.
import type { View } from './context.ts';
import { h, setTitle } from './dom.ts';
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
  // A new bidder signs up; one who forgot the password resets it; an unconfirmed one confirms with the mail's key.
  const ways = h(
    'ul',
    { class: 'ways' },
    h('li', {}, h('a', { href: '#/sign-up', id: 'to-sign-up' }, t('heading.createAccount'))),
    h('li', {}, h('a', { href: '#/password-reset', id: 'to-password-reset' }, t('button.forgotPassword'))),
    h('li', {}, h('a', { href: '#/confirm', id: 'to-confirm' }, t('web.confirmHeading'))),
  );
  root.replaceChildren(h('h1', {}, t('heading.signIn')), form, ways);
  setTitle(t('heading.signIn'));
  return () => undefined;
};
