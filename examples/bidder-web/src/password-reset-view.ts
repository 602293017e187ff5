// A forgotten password: the address (POST /v1/password-resets, answered alike whether it has an account), then the
// key of the reset mail with a new password (POST /v1/password-resets/confirmation), which ends every session.
import { ok } from '../../../clients/typescript/src/index.ts';
import { accountForm, field, notice } from './account-form.ts';
import type { View } from './context.ts';
import { h, setTitle } from './dom.ts';
import { t } from './i18n.ts';

export const passwordResetView: View = async ({ client }, root, params) => {
  const email = field('email', 'Email', t('label.email'), { type: 'email', autocomplete: 'email', value: params.get('email') ?? '' });
  const key = field('reset-key', 'Key', t('web.resetKey'), { type: 'text', autocomplete: 'one-time-code', spellcheck: 'false' });
  const password = field(
    'new-password',
    'Password',
    t('web.newPassword'),
    { type: 'password', autocomplete: 'new-password', minlength: '10' },
    t('web.passwordRules'),
  );
  const confirm = accountForm('reset-confirm-form', t('button.resetPassword'), [...key.parts, ...password.parts], async () => {
    ok(
      await client.POST('/v1/password-resets/confirmation', {
        body: { Email: email.input.value.trim(), Key: key.input.value.trim(), Password: password.input.value },
      }),
    );
    confirm.replaceWith(notice('reset-done', t('web.resetDone'), { href: '#/sign-in', text: t('button.signIn') }));
  });
  confirm.hidden = true;
  const showKeyForm = () => {
    confirm.hidden = false;
    key.input.focus();
  };
  const sent = h('div', { id: 'reset-sent' });
  const request = accountForm('reset-request-form', t('button.resetPassword'), email.parts, async () => {
    ok(await client.POST('/v1/password-resets', { body: { Email: email.input.value.trim() } }));
    sent.replaceChildren(notice('reset-sent-text', t('message.passwordResetSent')));
    showKeyForm();
  });
  const haveKey = h('button', { type: 'button', class: 'link', onclick: showKeyForm }, t('web.haveKey'));
  root.replaceChildren(h('h1', {}, t('web.resetHeading')), request, sent, h('p', {}, haveKey), confirm);
  setTitle(t('web.resetHeading'));
  return () => undefined;
};
