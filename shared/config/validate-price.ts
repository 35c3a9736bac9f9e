/** What is wrong with a target's list price (config/types.ts PriceConfig), in words a user can act on. */
import type { PriceConfig } from './types.ts';

/** The most a price per million tokens may be: far above any vendor's, low enough to catch a price per token typed as per million. */
export const MAX_PRICE_PER_MTOKENS = 10_000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day written `YYYY-MM-DD` that exists (no 2026-02-30). */
export function isCalendarDay(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  const m = DAY.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

export function priceProblems(price: PriceConfig | undefined, where: string): string[] {
  if (price === undefined) return [];
  if (typeof price !== 'object' || price === null)
    return [`${where}: price must be { inputPerMTokens, outputPerMTokens, currency: 'USD', asOf: 'YYYY-MM-DD', source }`];
  const p: string[] = [];
  for (const k of ['inputPerMTokens', 'outputPerMTokens'] as const) {
    const x = price[k];
    if (typeof x !== 'number' || !Number.isFinite(x)) p.push(`${where}: price.${k} is required: US dollars per million tokens`);
    else if (x < 0)
      p.push(`${where}: price.${k} is negative (${x}); a price is from 0 to ${MAX_PRICE_PER_MTOKENS} US dollars per million tokens`);
    else if (x > MAX_PRICE_PER_MTOKENS)
      p.push(`${where}: price.${k} is over ${MAX_PRICE_PER_MTOKENS} US dollars per million tokens (${x}): is it a price per thousand?`);
  }
  if (price.currency !== 'USD')
    p.push(`${where}: price.currency must be 'USD' (got ${JSON.stringify(price.currency)}): targets' costs are compared in one currency`);
  if (price.asOf === undefined) p.push(`${where}: price.asOf is required: the day the price was read, like '2026-12-01'`);
  else if (!isCalendarDay(price.asOf))
    p.push(`${where}: price.asOf must be a day written YYYY-MM-DD, like '2026-12-01' (got ${JSON.stringify(price.asOf)})`);
  if (typeof price.source !== 'string' || price.source.trim() === '')
    p.push(`${where}: price.source is required: the vendor's pricing page, or a few words on where the price comes from`);
  for (const k of Object.keys(price))
    if (!['inputPerMTokens', 'outputPerMTokens', 'currency', 'asOf', 'source'].includes(k))
      p.push(`${where}: price.${k} is not a field of a price`);
  return p;
}
