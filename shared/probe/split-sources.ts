/**
 * `split_source` names a vendor's bytes choose, bounded (MEASUREMENT.md, how this project reads the
 * contract). Without `serverTimingMetrics`, every Server-Timing metric is a candidate, so the name of
 * whichever wins would become a split source of its own, with its own rollup histograms and its own
 * series in /metrics and OTLP: a vendor sending `q<random>;dur=…` would grow them without end.
 *
 * So a target's unconfigured Server-Timing names are admitted into a book, the first
 * MAX_SPLIT_SOURCES_PER_TARGET of them, and every later name is stored as OTHER_SPLIT_SOURCE. The book
 * persists (a region keeps its own in its object's storage), so the bound holds across hours, not only
 * within the one a rollup sees. Sources the code names (vendor headers such as `openai-processing-ms`,
 * `rtt`, body fields such as `x_groq.usage`) and the entries of `serverTimingMetrics` are a closed set
 * already: they stand as they are and take no place in the book.
 */
import { SERVER_TIMING_PREFIX } from './server-timing.ts';

/** Unconfigured Server-Timing names one target's split_source takes at most (in each book: one per region). */
export const MAX_SPLIT_SOURCES_PER_TARGET = 4;
/** split_source of every unconfigured Server-Timing claim past the book's bound. */
export const OTHER_SPLIT_SOURCE = `${SERVER_TIMING_PREFIX}other`;

/** The unconfigured Server-Timing sources admitted so far, per target. */
export interface SplitSourceBook {
  admitted(target: string): readonly string[];
  /** Called only with a source not yet admitted for the target, while it holds fewer than the bound. */
  admit(target: string, source: string): void;
}

/** A book for one process (the CLI, tests): it lasts as long as the process does. */
export class MemorySplitSourceBook implements SplitSourceBook {
  private readonly sources = new Map<string, string[]>();

  admitted(target: string): readonly string[] {
    return this.sources.get(target) ?? [];
  }

  admit(target: string, source: string): void {
    this.sources.set(target, [...this.admitted(target), source]);
  }
}

/** What a target tells about its Server-Timing: its id, and the metrics configured for the split, if any. */
export interface SplitSourceTarget {
  id: string;
  serverTimingMetrics?: readonly string[];
}

/**
 * The split_source a sample stores: a source the code or the configuration names as it is; an
 * unconfigured Server-Timing name as it is when the target's book holds it or has room for it (it is
 * then admitted), else OTHER_SPLIT_SOURCE. The figures are the claim's either way: only the name is bounded.
 */
export function boundedSplitSource(source: string | null, target: SplitSourceTarget, book: SplitSourceBook): string | null {
  if (source === null || !source.startsWith(SERVER_TIMING_PREFIX)) return source;
  // With serverTimingMetrics set, only its entries are candidates (server-timing.ts): a closed set.
  if (target.serverTimingMetrics && target.serverTimingMetrics.length > 0) return source;
  if (source.toLowerCase() === OTHER_SPLIT_SOURCE) return OTHER_SPLIT_SOURCE;
  const admitted = book.admitted(target.id);
  if (admitted.includes(source)) return source;
  if (admitted.length >= MAX_SPLIT_SOURCES_PER_TARGET) return OTHER_SPLIT_SOURCE;
  book.admit(target.id, source);
  return source;
}
