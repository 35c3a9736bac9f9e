/**
 * The paired verdicts the site shows (MEASUREMENT.md, "Comparing two targets"), as GET /api/v1/compare answers them
 * from its views: per prompt variant and figure, every pair of targets in every region, Holm-corrected within each
 * family (one region × variant × figure), so the page's figures are the API's numbers.
 */
import type { CompareDoc, ComparisonDoc } from '../../../shared/api-types.ts';
import { PAIRED_FIGURES, type PairedFigure } from '../../../shared/rollup/paired-hours.ts';
import type { Verdict } from '../../../shared/stats/paired.ts';

export interface PairedView {
  /** The window the comparisons cover (the site's default view). */
  window: { from: string; to: string };
  figures: Record<PairedFigure, ComparisonDoc[]>;
}

/** One view per variant, from the compare answers of each figure (every variant's comparisons in each). */
export function pairedViewsOf(answers: readonly CompareDoc[]): Record<string, PairedView> {
  const out: Record<string, PairedView> = {};
  for (const answer of answers)
    for (const c of answer.comparisons) {
      const view = (out[c.prompt_variant] ??= {
        window: answer.window,
        figures: Object.fromEntries(PAIRED_FIGURES.map((f) => [f, []])) as Record<PairedFigure, ComparisonDoc[]>,
      });
      view.figures[answer.figure].push(c);
    }
  return out;
}

/** B's difference from A, in percent, given A's from B. */
const inverse = (pct: number | null) => (pct === null ? null : 100 * (1 / (1 + pct / 100) - 1));

/** A comparison read the other way round: B against A (each side's own wins swapped; a tie stays nobody's). */
function flipped(c: ComparisonDoc): ComparisonDoc {
  const verdict: Verdict = c.verdict === 'a_faster' ? 'b_faster' : c.verdict === 'b_faster' ? 'a_faster' : c.verdict;
  return {
    ...c,
    a: c.b,
    b: c.a,
    difference_pct: inverse(c.difference_pct),
    ci_low_pct: inverse(c.ci_high_pct),
    ci_high_pct: inverse(c.ci_low_pct),
    win_rate: c.b_win_rate,
    b_win_rate: c.win_rate,
    verdict,
  };
}

/** `first` against `second` in a region, on a figure: the paired comparison oriented so that A is `first`; null when none. */
export function headToHead(
  view: PairedView | undefined,
  figure: PairedFigure,
  region: string,
  first: string,
  second: string,
): ComparisonDoc | null {
  const c = view?.figures[figure]?.find(
    (x) => x.region === region && ((x.a === first && x.b === second) || (x.a === second && x.b === first)),
  );
  if (!c) return null;
  return c.a === first ? c : flipped(c);
}

const pct = (v: number | null) => (v === null ? '–' : `${Math.abs(v) < 10 ? Math.abs(v).toFixed(1) : Math.round(Math.abs(v))} %`);
const signedPct = (v: number | null) => (v === null ? '–' : `${v < 0 ? '−' : '+'}${pct(v)}`);

/** The verdict against the next, for a cell that already names `first`: "vs B: 12 % faster [−15 %, −9 %]". */
export function versusWords(c: ComparisonDoc, second: string): string {
  const interval = `[${signedPct(c.ci_low_pct)}, ${signedPct(c.ci_high_pct)}]`;
  switch (c.verdict) {
    case 'a_faster':
      return `${pct(c.difference_pct)} faster than ${second} ${interval}`;
    case 'b_faster':
      return `${second} faster in paired ticks, by ${pct(inverse(c.difference_pct))}`;
    case 'no_difference':
      return `no meaningful difference from ${second} ${interval}`;
    default:
      return `ahead of ${second}, not settled${c.more_ticks !== null ? `: about ${c.more_ticks.toLocaleString('en-US')} more ticks` : ''}`;
  }
}

/** The verdict in words, for `first` (A) against `second` (B). */
export function verdictWords(c: ComparisonDoc, first: string, second: string): string {
  const interval = `[${signedPct(c.ci_low_pct)}, ${signedPct(c.ci_high_pct)}]`;
  switch (c.verdict) {
    case 'a_faster':
      return `${first} faster than ${second} by ${pct(c.difference_pct)} ${interval}`;
    case 'b_faster':
      return `${second} faster than ${first} by ${pct(inverse(c.difference_pct))}`;
    case 'no_difference':
      return `no meaningful difference between ${first} and ${second} ${interval}`;
    default:
      return `${first} and ${second} not settled yet${c.more_ticks !== null ? `: about ${c.more_ticks.toLocaleString('en-US')} more paired ticks` : ''}`;
  }
}

/** The unit a comparison was judged in: "12 blocks of 14 h" (a block: consecutive hours, as long as their correlation needs). */
export function unitWords(c: ComparisonDoc): string | null {
  if (c.block_hours === null || c.blocks === 0) return null;
  return `${c.blocks} block${c.blocks === 1 ? '' : 's'} of ${c.block_hours} h`;
}
