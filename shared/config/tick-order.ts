/**
 * The order a region probes its share of a tick (MEASUREMENT.md, "Order within a tick"): shuffled, seeded
 * by the tick and the region, so it differs from tick to tick and region to region, and anyone can
 * reproduce it. A fixed order would confound a target with its place (first on a cold connection, or
 * seconds after the rest).
 */
import { mulberry32 } from '../stats/random.ts';

/** FNV-1a over the text: a 32-bit seed. */
function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** positions[i]: the place (0-based) of the i-th of `count` jobs in the tick's shuffled order (Fisher–Yates). */
export function tickPositions(count: number, tickId: number, region: string): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  const random = mulberry32(seedOf(`${tickId}|${region}`));
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const positions = new Array<number>(count);
  order.forEach((job, place) => {
    positions[job] = place;
  });
  return positions;
}
