import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineIntakeKind, type IntakeKind } from '../../src/intake-kind.ts';
import { runCommand } from '../../src/command-runner.ts';
import { isoDateTime, languageCode, positiveId, tenantId } from '../../src/events/define.ts';
import { intakePhone, isCountryCode, timeZoneName, normaliseVatNumber } from './rules.ts';
import { profileDecider } from './decide.ts';
import {
  COUNTRY_FIELDS,
  emptyProfile,
  PHONE_FIELDS,
  PHONE_INPUT_MAX,
  profileSchema,
  profileStreamId,
  VAT_INPUT_MAX,
  type ProfileFields,
} from './events.ts';
import { memberIsActive } from '../members/rules.ts';

const stored = profileSchema.partial().shape;

/**
 * `profile`: the back office brings a bidder's whole profile (a replacement, like PUT /v1/me), with the event's
 * field names; fields left out are stored empty. Phones may be as dialled in the profile's `country`; the VAT
 * number may carry spaces, dots or dashes. A changed company name or VAT number starts a VAT check.
 */
export const profileRecord = z.object({
  ...stored,
  kind: z.literal('profile'),
  tenant: tenantId,
  memberId: positiveId,
  language: languageCode,
  ...Object.fromEntries(PHONE_FIELDS.map((k) => [k, z.string().max(PHONE_INPUT_MAX).nullable().optional()])),
  ...Object.fromEntries(
    COUNTRY_FIELDS.map((k) => [
      k,
      z
        .string()
        .refine((v) => isCountryCode(v.toUpperCase()), 'an ISO 3166-1 alpha-2 code')
        .nullable()
        .optional(),
    ]),
  ),
  vatNumber: z.string().max(VAT_INPUT_MAX).nullable().optional(),
  timezone: z
    .string()
    .max(64)
    .refine((v) => timeZoneName(v) !== null, 'an IANA time zone')
    .nullable()
    .optional(),
  website: z
    .string()
    .max(200)
    .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'an http or https address')
    .nullable()
    .optional(),
  at: isoDateTime.optional(),
});

export const profileIntake: IntakeKind[] = [
  defineIntakeKind('profile', profileRecord, async (deps, record) => {
    const { kind: _kind, tenant, memberId, at, ...fields } = record;
    if (!(await memberIsActive(deps.log, tenant, memberId))) throw new Error(`member ${memberId} of ${tenant} does not exist`);
    const given = fields as Record<string, unknown>;
    const profile: Record<string, unknown> = { ...emptyProfile(record.language) };
    for (const [key, value] of Object.entries(given))
      if (value !== undefined) profile[key] = typeof value === 'string' ? value.trim() || null : value;
    for (const key of COUNTRY_FIELDS) if (typeof profile[key] === 'string') profile[key] = (profile[key] as string).toUpperCase();
    for (const key of PHONE_FIELDS)
      profile[key] = intakePhone(given[key] as string | null | undefined, profile.country as string | null, key);
    profile.vatNumber = normaliseVatNumber(record.vatNumber);
    if (typeof profile.timezone === 'string') profile.timezone = timeZoneName(profile.timezone);
    return runCommand(
      deps.log,
      profileStreamId(tenant, memberId),
      profileDecider,
      {
        type: 'ReplaceProfile',
        tenant,
        memberId,
        profile: profileSchema.parse(profile) as ProfileFields,
        checkId: randomUUID(),
        at: at ?? new Date().toISOString(),
      },
      { correlationId: deps.correlationId },
    );
  }),
];
