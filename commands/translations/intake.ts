import { z } from 'zod';
import { runCommand } from '../../src/command-runner.ts';
import { defineIntakeKind, type IntakeKind } from '../../src/intake-kind.ts';
import { translationsDecider } from './decide.ts';
import { InterfaceTranslationsPublished, translationsStreamId } from './events.ts';

/** `translations`: the house's interface dictionary of one language, replacing the previous one (docs/intake.md). */
export const translationsRecord = z.object({ kind: z.literal('translations') }).extend(InterfaceTranslationsPublished.schema.shape);
export type TranslationsRecord = z.infer<typeof translationsRecord>;

export const translationsIntake: IntakeKind[] = [
  defineIntakeKind('translations', translationsRecord, (deps, { kind: _k, ...data }) =>
    runCommand(deps.log, translationsStreamId(data.tenant, data.language), translationsDecider, data, {
      correlationId: deps.correlationId,
    }),
  ),
];
