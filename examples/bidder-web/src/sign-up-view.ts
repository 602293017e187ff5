// Signing up (POST /v1/members), then confirming the address with the key the confirmation mail carries
// (POST /v1/members/confirmation); the member signs in once it is confirmed.
import { ok } from '../../../clients/typescript/src/index.ts';
import { accountForm, field, notice } from './account-form.ts';
import type { View } from './context.ts';
import { h, setTitle } from './dom.ts';
import { currentLanguage, t } from './i18n.ts';

export const signUpView: View = async ({ client, navigate }, root) => {
  const first = field('first-name', 'FirstName', t('label.firstName'), { type: 'text', autocomplete: 'given-name' });
  const last = field('last-name', 'LastName', t('label.lastName'), { type: 'text', autocomplete: 'family-name' });
  const email = field('email', 'Email', t('label.email'), { type: 'email', autocomplete: 'email' });
  const password = field(
    'password',
    'Password',
    t('label.password'),
    { type: 'password', autocomplete: 'new-password', minlength: '10' },
    t('web.passwordRules'),
  );
  const form = accountForm(
    'sign-up-form',
    t('heading.createAccount'),
    [...first.parts, ...last.parts, ...email.parts, ...password.parts],
    async () => {
      const address = email.input.value.trim();
      ok(
        await client.POST('/v1/members', {
          body: {
            Email: address,
            Password: password.input.value,
            FirstName: first.input.value.trim(),
            LastName: last.input.value.trim(),
            Language: currentLanguage(),
          },
        }),
      );
      navigate(`#/confirm?email=${encodeURIComponent(address)}&sent=1`);
    },
  );
  const signIn = h('p', {}, h('a', { href: '#/sign-in' }, t('button.signIn')));
  root.replaceChildren(h('h1', {}, t('heading.createAccount')), form, signIn);
  setTitle(t('heading.createAccount'));
  return () => undefined;
};

export const confirmView: View = async ({ client }, root, params) => {
  const address = params.get('email') ?? '';
  const email = field('email', 'Email', t('label.email'), { type: 'email', autocomplete: 'email', value: address });
  const key = field('confirmation-key', 'Key', t('web.confirmationKey'), {
    type: 'text',
    autocomplete: 'one-time-code',
    spellcheck: 'false',
  });
  const form = accountForm('confirm-form', t('web.confirm'), [...email.parts, ...key.parts], async () => {
    ok(await client.POST('/v1/members/confirmation', { body: { Email: email.input.value.trim(), Key: key.input.value.trim() } }));
    form.replaceWith(
      notice('confirmed', t('web.confirmed'), { href: `#/sign-in?next=${encodeURIComponent('#/')}`, text: t('button.signIn') }),
    );
  });
  const sent = params.get('sent') ? notice('sign-up-sent', t('web.signUpSent', { email: address })) : null;
  root.replaceChildren(h('h1', {}, t('web.confirmHeading')), ...(sent ? [sent] : []), form);
  setTitle(t('web.confirmHeading'));
  return () => undefined;
};
