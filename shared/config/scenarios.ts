/**
 * The field's scenarios by output length: the compare page ranks targets by the expected total of each
 * (time to the first answer token + (tokens − 1) × TPOT at the scenario's middle length), and the
 * paired comparisons (shared/rollup/paired-hours.ts) compare each pair on the same totals.
 */
export interface Scenario {
  id: string;
  label: string;
  minTokens: number;
  maxTokens: number;
}

/** The scenarios of the field, by output length. */
export const SCENARIOS: Scenario[] = [
  { id: 'code', label: 'Code completion', minTokens: 5, maxTokens: 30 },
  { id: 'chat', label: 'Chat reply', minTokens: 20, maxTokens: 80 },
  { id: 'summary', label: 'Summary', minTokens: 300, maxTokens: 1_000 },
  { id: 'batch', label: 'Batch generation', minTokens: 500, maxTokens: 2_000 },
];

/** A scenario's middle length, the one it is judged at. */
export const scenarioTokens = (s: Scenario): number => Math.round((s.minTokens + s.maxTokens) / 2);
