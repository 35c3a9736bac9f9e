/** An hourly rollup row of one successful probe of ref-chat's tiny variant (100 ms TTFT), for retention and archive tests. */
import { rollUp, type Rollup } from '../../shared/rollup/rollup.ts';
import { METHOD_VERSION } from '../../shared/constants.ts';

export function oneProbeRollup(region: string, tickId: number): Rollup {
  const [rollup] = rollUp([
    {
      tick_id: tickId,
      region,
      target: 'ref-chat',
      prompt_variant: 'tiny',
      method_version: METHOD_VERSION,
      error: null,
      split_source: null,
      ttft_ms: 100,
      ttfa_ms: 100,
      tpot_ms: 5,
      itl_p99_ms: 6,
      total_ms: 200,
      decode_tps: 200,
      network_ms: null,
      server_ms: null,
    },
  ]);
  return rollup;
}
