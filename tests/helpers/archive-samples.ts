/**
 * Stored samples for the archive tests (workerd and DuckDB): one region's day of ticks over two
 * targets, every kind of value, with nulls where a field may be null (a failed probe has no figures).
 */
import { emptySample } from '../../shared/sample-fields.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';
import type { StoredSample } from '../../workers/observatory/db/sample-row.ts';

const FIVE_MIN = 300_000;

export function archiveSamples(region: string, day: number, ticks: number): StoredSample[] {
  const samples: StoredSample[] = [];
  for (let i = 0; i < ticks; i++) {
    const tick = day + i * FIVE_MIN;
    for (const target of ['ref-chat', 'ref-broken']) {
      const failed = target === 'ref-broken';
      samples.push({
        ...emptySample(),
        tick_id: tick,
        region,
        target,
        api: 'openai-chat',
        model: 'ref-fast-small',
        prompt_variant: 'tiny',
        method_version: METHOD_VERSION,
        started_at: tick + 1234.5 + i,
        colo: i % 2 === 0 ? 'AMS' : null,
        colo_outside_region: i % 3 === 0 ? null : i % 3 === 1,
        warm: i > 0,
        status: failed ? 500 : 200,
        headers_ms: failed ? null : 80 + i / 4,
        ttft_ms: failed ? null : 120.25 + i,
        total_ms: failed ? null : 400 + i,
        output_tokens: failed ? null : 32,
        tokens_exact: !failed,
        prompt_tokens: 20,
        max_tokens: 64,
        chunks: failed ? 0 : 33,
        server_timings: failed ? {} : { 'x-envoy-upstream-service-time': 70 + i },
        split_source: failed ? null : 'x-envoy-upstream-service-time',
        error: failed ? 'http' : null,
        error_detail: failed ? 'HTTP 500 "oops, \\"quoted\\""' : null,
        timeline: failed ? [] : [120.3, 130.1, 140.7 + i],
        simulated: true,
        backfill: i % 2 === 1,
        late: false,
        tick_position: failed ? null : i,
      });
    }
  }
  return samples;
}
