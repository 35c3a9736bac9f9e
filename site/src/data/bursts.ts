/** What a page says when it has no concurrency run to show, and why. */
import { pendingNote } from './pending.ts';
import type { SiteData, Target } from './types.ts';

export function burstsNone(data: SiteData, targets: Target[]): string {
  const b = data.bursts;
  const measuring = pendingNote(data, 'concurrency');
  if (measuring) return measuring;
  if (!b?.schedule)
    return 'No concurrency probes are configured: set bursts in observatory.config.ts (a schedule and levels) and bursts: true on the targets to probe with several simultaneous streams.';
  const variants = [...new Set(b.reports.map((r) => r.prompt_variant))];
  if (variants.length > 0 && !variants.includes(data.variant.id))
    return `The concurrency probes use the prompt variant ${variants.join(', ')}: see that variant's page.`;
  if (b.runs.length === 0)
    return `No concurrency run yet: they run on their own schedule (${b.schedule}), or start one now with POST /api/v1/bursts.`;
  return `${targets.length === 1 ? 'This target takes' : 'No target here takes'} no part in the concurrency probes: set bursts: true on a target to include it (real vendors bill every stream; npm run capacity counts them).`;
}
