/** A status badge per target (shields-style SVG): its status now and its TTFT p50 over the default view. */
const COLORS = { operational: '#2e7d32', degraded: '#b26a00', down: '#c62828', 'no-data': '#6b6b6b' } as const;
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Verdana 11px averages about 6.5 px a character; good enough for a badge's width. */
const width = (s: string) => Math.round(s.length * 6.5) + 12;

export function badgeSvg(label: string, status: keyof typeof COLORS, ttftP50: number | null): string {
  const right = `${status === 'no-data' ? 'no data' : status}${ttftP50 === null ? '' : ` · TTFT p50 ${Math.round(ttftP50).toLocaleString('en-US')} ms`}`;
  const a = width(label);
  const b = width(right);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${a + b}" height="20" role="img" aria-label="${escape(`${label}: ${right}`)}">
<title>${escape(`${label}: ${right}`)}</title>
<rect width="${a}" height="20" fill="#555"/><rect x="${a}" width="${b}" height="20" fill="${COLORS[status]}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="${a / 2}" y="14">${escape(label)}</text><text x="${a + b / 2}" y="14">${escape(right)}</text>
</g>
</svg>
`;
}
