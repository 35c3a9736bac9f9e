/**
 * A region's book of each target's split sources (shared/probe/split-sources.ts), in its object's own
 * storage: one meta row, read once per object and written only when a source is admitted (at most
 * MAX_SPLIT_SOURCES_PER_TARGET writes per target, ever), so the bound holds across alarms and restarts.
 */
import type { SplitSourceBook } from '../../../shared/probe/split-sources.ts';
import type { ProberStore } from '../duty/prober-store.ts';

export class StoredSplitSourceBook implements SplitSourceBook {
  private readonly store: ProberStore;
  private sources: Record<string, string[]> | null = null;

  constructor(store: ProberStore) {
    this.store = store;
  }

  admitted(target: string): readonly string[] {
    return this.all()[target] ?? [];
  }

  admit(target: string, source: string): void {
    const all = this.all();
    all[target] = [...(all[target] ?? []), source];
    this.store.setMeta('split_sources', JSON.stringify(all));
  }

  /** The object is the only writer of its storage: what it read once stays true. */
  private all(): Record<string, string[]> {
    this.sources ??= JSON.parse(this.store.meta('split_sources') ?? '{}') as Record<string, string[]>;
    return this.sources;
  }
}
