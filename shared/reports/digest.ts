/**
 * A weekly report's digest: the one message a channel with `digest: true` gets per published version (docs/REPORTS.md):
 * its title and text for the chat and email channels, and this whole document as a webhook's JSON body. Built once
 * when it is queued, so a retry sends the same bytes.
 */
import { digestLines, type ReportVersionEntry, type WeeklyReport } from './report.ts';

export interface ReportDigestMessage {
  /** Unique per report version and channel: receivers can drop a repeat by it. */
  delivery_id: string;
  type: 'report.published';
  report: {
    week: string;
    version: number;
    sha256: string;
    corrects: { version: number; reason: string } | null;
    /** Where it is read: its API path, and its page on the site when notifications.siteUrl is set. */
    api_path: string;
  };
  title: string;
  text: string;
  link: string | null;
}

export function digestMessage(
  report: WeeklyReport,
  entry: ReportVersionEntry,
  siteUrl: string | undefined,
  deliveryId: string,
): ReportDigestMessage {
  const link = siteUrl ? `${siteUrl.replace(/\/$/, '')}/reports/${report.week}/#v${entry.version}` : null;
  const title = `📊 Weekly report ${report.week}${entry.corrects ? ` v${entry.version}, correcting v${entry.corrects.version}` : ''}`;
  const lines = [
    title,
    ...(entry.corrects ? [`Corrects version ${entry.corrects.version}: ${entry.corrects.reason}`] : []),
    ...digestLines(report),
    ...(link ? [link] : []),
  ];
  return {
    delivery_id: deliveryId,
    type: 'report.published',
    report: {
      week: report.week,
      version: entry.version,
      sha256: entry.sha256,
      corrects: entry.corrects,
      api_path: `/api/v1/reports/${report.week}/v${entry.version}`,
    },
    title,
    text: lines.join('\n'),
    link,
  };
}
