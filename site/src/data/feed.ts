/** The incident feed's XML: Atom (RFC 4287), every text escaped. */
import { digestLines } from '../../../shared/reports/report.ts';
import type { SiteData } from './types.ts';
import { vendorEntries, vendorLine } from './vendor-feed.ts';

/** Each status rule in a few words (shared/status/rules.ts). */
const RULE_WORDS: Record<string, string> = {
  down: 'consecutive failures',
  errors: 'error rate',
  ttft: 'TTFT p99 over its baseline',
  itl: 'inter-token latency',
  decode: 'decode speed drop',
};

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function atomFeed(data: SiteData, siteUrl: string): string {
  const base = siteUrl.replace(/\/$/, '');
  // biome-ignore lint/complexity/useMathMinMax: ISO timestamps compared as strings; Math.max would give NaN
  const updated = data.incidents.reduce((t, i) => (i.updated_at > t ? i.updated_at : t), data.generated_at);
  const entries = data.incidents.map((i) => {
    // Names the target, the prompt variant, the regions and the rules that fired.
    const variant = data.variants.find((v) => v.id === i.variant)?.label.split(':')[0] ?? i.variant;
    const rules = i.rules.map((r) => RULE_WORDS[r] ?? r).join(', ');
    const title = `${i.status === 'open' ? 'Open' : 'Resolved'}: ${i.target_label}, ${variant} prompt — ${i.severity} (${i.scope === 'target' ? 'all regions' : i.regions.join(', ')})${rules ? `: ${rules}` : ''}`;
    const lines = [...i.timeline.map((e) => `${e.at} ${e.kind} (${e.severity}): ${e.summary}`), ...vendorLine(data, i.id)];
    return [
      '  <entry>',
      `    <id>urn:llm-observatory:incident:${escapeXml(i.id)}</id>`,
      `    <title>${escapeXml(title)}</title>`,
      `    <updated>${escapeXml(i.updated_at)}</updated>`,
      `    <published>${escapeXml(i.opened_at)}</published>`,
      `    <link rel="alternate" type="text/html" href="${escapeXml(`${base}/incidents/#${i.id}`)}"/>`,
      `    <category term="${escapeXml(i.severity)}"/>`,
      `    <summary type="text">${escapeXml(lines.join('\n'))}</summary>`,
      '  </entry>',
    ].join('\n');
  });
  // TTFA changes (this week against the four before): one entry per region × target × variant and week.
  const changes = data.changes.map((c) => {
    const label = data.targets.find((t) => t.id === c.target)?.label ?? c.target;
    const title = `Changed: ${label} ${Math.abs(c.change_pct).toFixed(0)} % ${c.direction} to answer in ${c.region} (${c.prompt_variant})`;
    const summary = `Median time to the first answer token ${c.now.p50.toFixed(0)} ms from ${c.window.split.slice(0, 10)}, against ${c.before.p50.toFixed(0)} ms in the four weeks before; the days' medians moved ${c.change_pct.toFixed(1)} % [${c.change_low_pct.toFixed(1)}, ${c.change_high_pct.toFixed(1)}] (${c.now.days} days against ${c.before.days}).`;
    return [
      '  <entry>',
      `    <id>urn:llm-observatory:change:${escapeXml(`${c.target}:${c.region}:${c.prompt_variant}:${c.window.split.slice(0, 10)}`)}</id>`,
      `    <title>${escapeXml(title)}</title>`,
      `    <updated>${escapeXml(c.window.to)}</updated>`,
      `    <link rel="alternate" type="text/html" href="${escapeXml(`${base}/targets/${c.target}/`)}"/>`,
      `    <category term="change"/>`,
      `    <summary type="text">${escapeXml(summary)}</summary>`,
      '  </entry>',
    ].join('\n');
  });
  // The weekly reports: one entry per published version (a correction is an entry of its own, saying what it corrects).
  const reports = (data.reports ?? []).flatMap((w) =>
    w.versions.map((v) => {
      const title = `Weekly report ${w.week}${v.corrects ? ` v${v.version}: corrects v${v.corrects.version}` : ''}`;
      const summary = [
        ...(v.corrects ? [`Corrects version ${v.corrects.version}: ${v.corrects.reason}`] : []),
        ...digestLines(v.report),
        `SHA-256 ${v.sha256}`,
      ].join('\n');
      return [
        '  <entry>',
        `    <id>urn:llm-observatory:report:${escapeXml(w.week)}:v${v.version}</id>`,
        `    <title>${escapeXml(title)}</title>`,
        `    <updated>${escapeXml(v.published_at)}</updated>`,
        `    <published>${escapeXml(v.published_at)}</published>`,
        `    <link rel="alternate" type="text/html" href="${escapeXml(`${base}/reports/${w.week}/#v${v.version}`)}"/>`,
        '    <category term="report"/>',
        `    <summary type="text">${escapeXml(summary)}</summary>`,
        '  </entry>',
      ].join('\n');
    }),
  );
  // The vendors' own incidents (vendor-feed.ts), each with the probes' view of it.
  const vendor = vendorEntries(data, base).map((e) =>
    [
      '  <entry>',
      `    <id>${escapeXml(e.id)}</id>`,
      `    <title>${escapeXml(e.title)}</title>`,
      `    <updated>${escapeXml(e.updated)}</updated>`,
      `    <published>${escapeXml(e.published)}</published>`,
      `    <link rel="alternate" type="text/html" href="${escapeXml(e.link)}"/>`,
      `    <category term="${escapeXml(e.category)}"/>`,
      `    <summary type="text">${escapeXml(e.summary)}</summary>`,
      '  </entry>',
    ].join('\n'),
  );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    '  <id>urn:llm-observatory:incidents</id>',
    '  <title>LLM latency observatory: incidents</title>',
    `  <updated>${escapeXml(updated)}</updated>`,
    '  <author><name>LLM latency observatory</name></author>',
    `  <link rel="self" type="application/atom+xml" href="${escapeXml(`${base}/feed.xml`)}"/>`,
    `  <link rel="alternate" type="text/html" href="${escapeXml(`${base}/incidents/`)}"/>`,
    ...entries,
    ...changes,
    ...reports,
    ...vendor,
    '</feed>',
    '',
  ].join('\n');
}
