// The compare page's custom answer length, re-ranked in the page by the medians above it (no verdict: that is the
// paired comparisons'). Inlined, minified, by ComparePage.astro; its data: per region, each target's TTFT median (a)
// and time per output token (d), from the page's compare-data.
const regions = JSON.parse(document.getElementById('compare-data').textContent);
const input = document.getElementById('custom-tokens');
const result = document.getElementById('custom-result');
const msText = (v) => Math.round(v).toLocaleString('en-US');

function rerank() {
  const text = input.value.trim();
  const tokens = Number(text);
  if (!/^\d+$/.test(text) || tokens < 1 || tokens > 1e5) {
    input.setAttribute('aria-invalid', 'true');
    result.textContent = ' — enter a whole number of tokens from 1 to 100,000';
    return;
  }
  input.removeAttribute('aria-invalid');
  const ranked = regions.map((region) => {
    const totals = region.t.map((t) => ({ label: t.l, ms: t.a + (tokens - 1) * t.d })).sort((a, b) => a.ms - b.ms);
    const firstTwo = totals.slice(0, 2).map((t) => `${t.label} (${msText(t.ms)} ms)`);
    return `${region.r}: ${totals.length ? firstTwo.join(', then ') : '–'}`;
  });
  result.textContent = ` — by medians: ${ranked.join('; ')}`;
}

input.addEventListener('input', rerank);
rerank();
