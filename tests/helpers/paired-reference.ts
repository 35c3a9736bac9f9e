/**
 * The paired comparisons as they were computed before issue 33's speed-up (commit cf35aa9), kept as they were in
 * tests/helpers/paired-reference/: PairBlock objects, each window's blocks filtered anew, every Walsh order statistic
 * found by halving the range of values, the hours' autocorrelation over arrays of objects. The oracle the fast code
 * is tested bit-identical to (tests/shared/stats/paired-equivalence.test.ts), and the baseline bench/duties.ts measures
 * beside it, in the same run. Read only: never changed but to follow a rename elsewhere.
 */
export * as pairedBefore from './paired-reference/paired.ts';
export * as walshBefore from './paired-reference/walsh.ts';
export * as signedRankBefore from './paired-reference/signed-rank.ts';
export * as blockLengthBefore from './paired-reference/block-length.ts';
export * as familiesBefore from './paired-reference/paired-families.ts';
export { CompareViewBuilder as CompareViewBuilderBefore } from './paired-reference/compare-build.ts';
