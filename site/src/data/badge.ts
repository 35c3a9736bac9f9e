/**
 * Status badges per target (shields-style SVG), painted in the states' one set of colours (shared/status/levels.ts):
 * its status now with its TTFT p50 over the default view, and its history over a view, a mark per period as the
 * status page's strip draws it (a partial outage as operational with a band of its own across the top).
 */
import { PARTIAL_BAND, STATE_COLORS, type PairStatus, type StripState } from '../../../shared/status/levels.ts';

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Verdana 11px averages about 6.5 px a character; good enough for a badge's width. */
const width = (s: string) => Math.round(s.length * 6.5) + 12;
const HEIGHT = 20;
const LABEL_FILL = '#555';

/** A badge's colour for a state: the light scheme's (a badge is shown on other sites, whatever their scheme). */
export const badgeColor = (s: StripState): string => STATE_COLORS[s].light;

/** A badge of `label` and a right part `right` px wide drawn by `body` (given where the right part begins). */
function frame(label: string, words: string, right: number, body: (x: number) => string): string {
  const a = width(label);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${a + right}" height="${HEIGHT}" role="img" aria-label="${escapeXml(words)}">
<title>${escapeXml(words)}</title>
<rect width="${a}" height="${HEIGHT}" fill="${LABEL_FILL}"/>
${body(a)}
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="${a / 2}" y="14">${escapeXml(label)}</text>
</g>
</svg>
`;
}

export function badgeSvg(label: string, status: PairStatus, ttftP50: number | null): string {
  const right = `${status === 'no-data' ? 'no data' : status}${ttftP50 === null ? '' : ` · TTFT p50 ${Math.round(ttftP50).toLocaleString('en-US')} ms`}`;
  const a = width(label);
  const b = width(right);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${a + b}" height="${HEIGHT}" role="img" aria-label="${escapeXml(`${label}: ${right}`)}">
<title>${escapeXml(`${label}: ${right}`)}</title>
<rect width="${a}" height="${HEIGHT}" fill="${LABEL_FILL}"/><rect x="${a}" width="${b}" height="${HEIGHT}" fill="${badgeColor(status)}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">
<text x="${a / 2}" y="14">${escapeXml(label)}</text><text x="${a + b / 2}" y="14">${escapeXml(right)}</text>
</g>
</svg>
`;
}

/** A history badge's mark: this wide, this far apart. */
const MARK_PX = 3;
const GAP_PX = 1;
const PAD_PX = 4;

/**
 * The target's history over a view: a mark per period, oldest first, each with its state and its words as a
 * tooltip (`title`); `summary` names the view and the worst periods for the badge's accessible name.
 */
export function historyBadgeSvg(label: string, summary: string, marks: ReadonlyArray<{ state: StripState; words: string }>): string {
  const right = 2 * PAD_PX + marks.length * (MARK_PX + GAP_PX) - GAP_PX;
  const band = Math.round((HEIGHT - 2 * PAD_PX) * PARTIAL_BAND);
  const inner = HEIGHT - 2 * PAD_PX;
  const body = (x0: number) =>
    [
      `<rect x="${x0}" width="${right}" height="${HEIGHT}" fill="${LABEL_FILL}"/>`,
      ...marks.map((m, i) => {
        const x = x0 + PAD_PX + i * (MARK_PX + GAP_PX);
        const at = (dy: number, h: number, fill: string) =>
          `<rect x="${x}" y="${PAD_PX + dy}" width="${MARK_PX}" height="${h}" fill="${fill}"><title>${escapeXml(m.words)}</title></rect>`;
        return m.state === 'partial'
          ? at(0, band, badgeColor('partial')) + at(band, inner - band, badgeColor('operational'))
          : at(0, inner, badgeColor(m.state));
      }),
    ].join('\n');
  return frame(label, `${label}: ${summary}`, right, body);
}
