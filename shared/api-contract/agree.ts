/**
 * The answer types shared/api-types.ts derives from the definitions they report, held to the contract's schemas
 * at compile time: each must be assignable to what its schema accepts (`npm run typecheck` fails otherwise), so a
 * field added to an answer, or a type changed, is declared in the contract too. (The types the schemas define
 * whole are derived from them in api-types.ts.)
 */
import type { z } from '@hono/zod-openapi';
import type * as T from '../api-types.ts';
import type { Declared } from './routes.ts';
import type * as S from './schemas.ts';

type Holds<Answer extends Declared<Schema>, Schema> = Answer;

export type Agreements = [
  Holds<T.StatusDoc, z.input<typeof S.StatusDocSchema>>,
  Holds<T.IncidentDoc, z.input<typeof S.IncidentSchema>>,
  Holds<T.TimelineDoc, z.input<typeof S.TimelineDocSchema>>,
  Holds<T.BurstsDoc, z.input<typeof S.BurstsDocSchema>>,
  Holds<T.CompareDoc, z.input<typeof S.CompareDocSchema>>,
  Holds<T.PromptCachesDoc, z.input<typeof S.PromptCachesDocSchema>>,
  Holds<T.ChangesDoc, z.input<typeof S.ChangesDocSchema>>,
  Holds<T.ServedByDoc, z.input<typeof S.ServedByDocSchema>>,
  Holds<T.FidelityDoc, z.input<typeof S.FidelityDocSchema>>,
  Holds<T.TimeProfilesDoc, z.input<typeof S.TimeProfilesDocSchema>>,
  Holds<T.PercentileGroup, z.input<typeof S.PercentileGroupSchema>>,
];
