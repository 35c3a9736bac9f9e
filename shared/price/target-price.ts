/** A target's configured list price (config/types.ts PriceConfig) as the catalog answers it (api-types.ts TargetPrice). */
import type { TargetPrice } from '../api-types.ts';
import type { TargetConfig } from '../config/types.ts';

export function targetPrice(t: Pick<TargetConfig, 'price'>): TargetPrice | null {
  const p = t.price;
  if (!p) return null;
  return {
    input_per_mtokens: p.inputPerMTokens,
    output_per_mtokens: p.outputPerMTokens,
    currency: p.currency,
    as_of: p.asOf,
    source: p.source,
  };
}
