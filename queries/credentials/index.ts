import type { FeaturePart } from '../../src/feature.ts';
import { credentialsQueryOperations } from './operations.ts';

/** The read side of application and anonymous tokens, and the current token: the HTTP operations it registers (app/features/index.ts). */
export const credentialsQueries: FeaturePart = { operations: credentialsQueryOperations };
