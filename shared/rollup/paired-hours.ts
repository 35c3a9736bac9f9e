/**
 * The hourly blocks of the paired comparisons (MEASUREMENT.md, "Comparing two targets"), written with the
 * hourly rollup from the same samples: per region, prompt variant and hour, one row holding every pair of
 * targets' block (per figure: its paired ticks, each side's wins, and the median d). A comparison over any window then
 * reads one row per hour, whatever the number of targets (shared/stats/paired.ts merges them).
 */
import { pairBlock, type PairBlock } from '../stats/paired.ts';
import { SCENARIOS, scenarioTokens } from '../config/scenarios.ts';
import { hourOf, type RollupSample } from './rollup.ts';

/** What a pair is compared on: time to the first answer token, and the expected total of each scenario. */
export const PAIRED_FIGURES = ['ttfa_ms', ...SCENARIOS.map((s) => `total_${s.id}`)] as const;
export type PairedFigure = (typeof PAIRED_FIGURES)[number];

export interface PairedHour {
  hour: number;
  region: string;
  prompt_variant: string;
  method_version: number;
  /** "a|b" (a < b) → the pair's block this hour. */
  blocks: Map<string, PairBlock>;
}

export const pairKey = (a: string, b: string): string => `${a}|${b}`;

/** Each figure of a successful sample: its TTFA, and TTFA + (tokens − 1) × TPOT per scenario (null without a TPOT). */
function figuresOf(s: RollupSample): number[] | null {
  if (s.error !== null || s.ttfa_ms === null) return null;
  const tpot = s.tpot_ms;
  return [s.ttfa_ms, ...SCENARIOS.map((sc) => (tpot === null ? Number.NaN : s.ttfa_ms! + (scenarioTokens(sc) - 1) * tpot))];
}

/** The hour's rows (one per region × variant × method version), every pair of targets that both succeeded at a tick. */
export function pairedHours(samples: Iterable<RollupSample>): PairedHour[] {
  // hour|region|variant|method → target → figure → tick → value
  const groups = new Map<string, { key: Omit<PairedHour, 'blocks'>; targets: Map<string, Array<Map<number, number>>> }>();
  for (const s of samples) {
    const f = figuresOf(s);
    if (!f) continue;
    const hour = hourOf(s.tick_id);
    const id = `${hour}|${s.region}|${s.prompt_variant}|${s.method_version}`;
    let g = groups.get(id);
    if (!g)
      groups.set(
        id,
        (g = { key: { hour, region: s.region, prompt_variant: s.prompt_variant, method_version: s.method_version }, targets: new Map() }),
      );
    let per = g.targets.get(s.target);
    if (!per) g.targets.set(s.target, (per = PAIRED_FIGURES.map(() => new Map<number, number>())));
    f.forEach((v, i) => {
      if (Number.isFinite(v)) per![i].set(s.tick_id, v);
    });
  }
  const out: PairedHour[] = [];
  for (const { key, targets } of groups.values()) {
    const ids = [...targets.keys()].sort();
    const blocks = new Map<string, PairBlock>();
    for (let i = 0; i < ids.length; i++)
      for (let j = i + 1; j < ids.length; j++) {
        const a = targets.get(ids[i])!;
        const b = targets.get(ids[j])!;
        const block = pairBlock(
          key.hour,
          a.map((m, k) => ({ a: m, b: b[k] })),
        );
        if (block) blocks.set(pairKey(ids[i], ids[j]), block);
      }
    if (blocks.size > 0) out.push({ ...key, blocks });
  }
  return out.sort((x, y) => x.hour - y.hour || x.region.localeCompare(y.region) || x.prompt_variant.localeCompare(y.prompt_variant));
}

/** Decimal places a stored d keeps (1e-6 in ln: far below any difference a comparison can resolve). */
const D_DIGITS = 6;

/**
 * The stored format, named in each row's JSON under FORMAT_KEY. Format 2: per pair "a|b", per figure in
 * PAIRED_FIGURES' order, [paired ticks, ticks A was lower, ticks B was lower, median d] (a tie counts for
 * neither). Format 1 (rows without the key, written before per-figure counts): [paired ticks, ticks A was
 * faster, median d per figure], the counts TTFA's alone; read as such, the other figures' counts unknown (null).
 */
export const BLOCKS_FORMAT = 2;
export const FORMAT_KEY = 'v';
/** Numbers a figure holds in a format-2 block. */
export const PER_FIGURE = 4;

/** A row's blocks as stored and parsed: the format's number under FORMAT_KEY (format 2 on), pair "a|b" → its numbers. */
export type StoredBlocks = Record<string, Array<number | null> | number>;

/** The row's blocks as stored, in the current format. */
export function encodeBlocks(blocks: ReadonlyMap<string, PairBlock>): string {
  const out: StoredBlocks = { [FORMAT_KEY]: BLOCKS_FORMAT };
  for (const [key, b] of blocks) {
    const flat: Array<number | null> = [];
    b.d.forEach((d, f) => {
      flat.push(b.n[f] ?? 0, b.aWins[f] ?? 0, b.bWins[f] ?? 0, d === null ? null : Number(d.toFixed(D_DIGITS)));
    });
    out[key] = flat;
  }
  return JSON.stringify(out);
}

/** The format of a parsed row (1 when it names none). */
export function formatOf(stored: StoredBlocks): number {
  const v = stored[FORMAT_KEY];
  if (v === undefined) return 1;
  if (v !== 1 && v !== BLOCKS_FORMAT)
    throw new Error(`paired blocks in format ${JSON.stringify(v)}, which this code cannot read (it reads 1 and ${BLOCKS_FORMAT})`);
  return v;
}

/** One pair's block of an hour, from its stored array in `format`. */
export function blockOf(hour: number, stored: Array<number | null>, format: number): PairBlock {
  if (format === 1) {
    const d = stored.slice(2);
    const unknown = () => d.map(() => null);
    const n: Array<number | null> = unknown();
    const aWins: Array<number | null> = unknown();
    n[0] = stored[0] ?? 0;
    aWins[0] = stored[1] ?? 0;
    // B's wins were never stored: n − A's wins holds the ties as well.
    return { hour, n, aWins, bWins: unknown(), d };
  }
  const figures = stored.length / PER_FIGURE;
  const block: PairBlock = { hour, n: [], aWins: [], bWins: [], d: [] };
  for (let f = 0; f < figures; f++) {
    block.n.push(stored[PER_FIGURE * f]);
    block.aWins.push(stored[PER_FIGURE * f + 1]);
    block.bWins.push(stored[PER_FIGURE * f + 2]);
    block.d.push(stored[PER_FIGURE * f + 3]);
  }
  return block;
}

/** Every pair's block of a row, from its stored JSON (text, or parsed already). */
export function decodeBlocks(hour: number, stored: string | StoredBlocks): Map<string, PairBlock> {
  const raw: StoredBlocks = typeof stored === 'string' ? JSON.parse(stored) : stored;
  const format = formatOf(raw);
  const out = new Map<string, PairBlock>();
  for (const [key, values] of Object.entries(raw))
    if (key !== FORMAT_KEY && Array.isArray(values)) out.set(key, blockOf(hour, values, format));
  return out;
}
