/**
 * The texts of the account mails. The key stands on a line of its own, so a person can copy it and a front
 * end's link can carry it; nothing else in the mail is secret.
 */
export interface MailText {
  subject: string;
  body: string;
}

const greeting = (firstName: string) => (firstName.trim() ? `Hello ${firstName.trim()},` : 'Hello,');

export function confirmationMail(p: { houseName: string; firstName: string; email: string; key: string; expiresAt: string }): MailText {
  return {
    subject: `${p.houseName}: confirm your email address`,
    body: [
      greeting(p.firstName),
      '',
      `thank you for signing up as a bidder at ${p.houseName} with ${p.email}. To confirm this address, enter this key:`,
      '',
      p.key,
      '',
      `The key works once, until ${p.expiresAt} (UTC). You can sign in once your address is confirmed.`,
      'If you did not sign up, ignore this mail: the account stays unconfirmed.',
    ].join('\n'),
  };
}

export function passwordResetMail(p: { houseName: string; firstName: string; email: string; key: string; expiresAt: string }): MailText {
  return {
    subject: `${p.houseName}: reset your password`,
    body: [
      greeting(p.firstName),
      '',
      `someone asked to reset the password of the bidder account ${p.email} at ${p.houseName}. To choose a new password, enter this key:`,
      '',
      p.key,
      '',
      `The key works once, until ${p.expiresAt} (UTC); asking again makes a new key and this one stops working.`,
      'Setting a new password signs the account out everywhere. If you did not ask for this, ignore this mail: your password stays as it is.',
    ].join('\n'),
  };
}
