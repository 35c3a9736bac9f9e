import { percentile } from '../shared/stats/percentile.ts';
import type { Sample } from '../shared/types.ts';

const COLUMNS: Array<[string, (s: Sample) => string]> = [
  ['status', (s) => String(s.status ?? '-')],
  ['headers', (s) => ms(s.headers_ms)],
  ['ttft', (s) => ms(s.ttft_ms)],
  ['ttfa', (s) => ms(s.ttfa_ms)],
  ['network', (s) => ms(s.network_ms)],
  ['server', (s) => ms(s.server_ms)],
  ['split', (s) => s.split_source ?? '-'],
  ['tpot', (s) => ms(s.tpot_ms)],
  ['tok/s', (s) => (s.decode_tps === null ? '-' : s.decode_tps.toFixed(1))],
  ['out', (s) => (s.output_tokens === null ? '-' : `${s.output_tokens}${s.tokens_exact ? '' : '~'}`)],
  ['total', (s) => ms(s.total_ms)],
  ['error', (s) => (s.error ? `${s.error}: ${s.error_detail ?? ''}` : '')],
];

function ms(v: number | null): string {
  return v === null ? '-' : v.toFixed(1);
}

/** A readable table of samples, then p50/p90 of the main figures over the successful ones. */
export function formatTable(samples: Sample[]): string {
  const header = ['#', ...COLUMNS.map(([name]) => name)];
  const rows = samples.map((s, i) => [String(i + 1), ...COLUMNS.map(([, get]) => get(s))]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (c === header.length - 1 ? 0 : r[c].length))));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === cells.length - 1 ? cell : cell.padStart(widths[c])))
      .join('  ')
      .trimEnd();
  const out = [line(header), ...rows.map(line)];
  const ok = samples.filter((s) => s.error === null);
  const errors = samples.length - ok.length;
  out.push('');
  out.push(`${ok.length} ok, ${errors} failed (ms; "~" = token count estimated from chunks)`);
  for (const [name, pick] of [
    ['ttft_ms', (s: Sample) => s.ttft_ms],
    ['network_ms', (s: Sample) => s.network_ms],
    ['server_ms', (s: Sample) => s.server_ms],
    ['tpot_ms', (s: Sample) => s.tpot_ms],
    ['total_ms', (s: Sample) => s.total_ms],
  ] as const) {
    const values = ok.map(pick).filter((v): v is number => v !== null);
    if (values.length === 0) continue;
    const p = (q: number) => percentile(values, q)!.toFixed(1);
    out.push(`${name.padEnd(11)} p50 ${p(0.5).padStart(8)}  p90 ${p(0.9).padStart(8)}  (n=${values.length})`);
  }
  return out.join('\n');
}
