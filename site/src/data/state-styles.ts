/**
 * The status states' colours as CSS, from their one definition (shared/status/levels.ts): a custom property per state
 * and colour scheme, and each state's class on the marks, legend swatches, pills, region dots and text. Base.astro
 * puts it in every page's head, so no stylesheet names a state's colour.
 */
import { PARTIAL_BAND, STATE_COLORS, STRIP_STATES, type StripState } from '../../../shared/status/levels.ts';

export const stateVar = (s: StripState): string => `--state-${s}`;

/** How a state fills a mark, swatch, pill or dot: its colour, or for partial the operational colour under a band of its own. */
export function stateFill(s: StripState): string {
  if (s !== 'partial') return `var(${stateVar(s)})`;
  const band = `${PARTIAL_BAND * 100}%`;
  return `linear-gradient(to bottom, var(${stateVar('partial')}) 0 ${band}, var(${stateVar('operational')}) ${band} 100%)`;
}

function vars(scheme: 'light' | 'dark'): string {
  return STRIP_STATES.map((s) => `${stateVar(s)}: ${STATE_COLORS[s][scheme]};`).join(' ');
}

export function stateCss(): string {
  const rules = STRIP_STATES.map(
    (s) =>
      `.strip .${s}, .swatch.${s}, .pill.pill-${s}, .bar .mark.${s}, .region-dot.${s}::before { background: ${stateFill(s)}; } .status-${s} { color: var(${stateVar(s)}); }`,
  );
  return [`:root { ${vars('light')} }`, `@media (prefers-color-scheme: dark) { :root { ${vars('dark')} } }`, ...rules].join('\n');
}
