/* What phone verification's operations (checking a code) and jobs (texting it) share. */

/** The purpose codes are derived for (src/security/keys.ts). */
export const PHONE_CODE_PURPOSE = 'phone';
