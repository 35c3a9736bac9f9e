/**
 * Maintenance windows (README "Status and alerts"): a target or all of them, in a region or all, from a start to
 * an end, with a note, from the configuration or the admin API. While one covers a region × target, the keeper
 * still evaluates it and counts its ticks as `maintenance`; such a pair can neither open, escalate nor resolve an
 * incident, so no message is sent for it; an incident already open is annotated once. Uptime leaves them out.
 */
import { DAY_MS } from '../time.ts';

/** `*` for every target, or every region. */
export const ALL = '*';

export interface MaintenanceWindow {
  id: string;
  target: string;
  region: string;
  /** Epoch ms: covers ticks with starts_at ≤ tick < ends_at. */
  starts_at: number;
  ends_at: number;
  note: string;
  source: 'config' | 'api';
}

/** A window as the configuration writes it (`maintenance: [...]`); times as ISO 8601 with a zone, e.g. 2026-12-02T01:00Z. */
export interface MaintenanceConfig {
  target?: string;
  region?: string;
  start: string;
  end: string;
  note: string;
}

export const MAX_NOTE_CHARS = 200;
/** The longest window: a longer "maintenance" is an outage to be reported, not muted. */
export const MAX_WINDOW_DAYS = 14;
/** Windows the admin API keeps at once (past ones count until retention drops them). */
export const MAX_API_WINDOWS = 200;

/** An ISO 8601 time with its zone (Z or ±hh:mm): a bare local time would mean different moments to different readers. */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The problems of one window as written (config or API body), in words a user can act on; `where` prefixes each. */
export function windowProblems(
  w: Partial<Record<keyof MaintenanceConfig, unknown>>,
  known: { targets: readonly string[]; regions: readonly string[] },
  where: string,
): string[] {
  const p: string[] = [];
  if (w.target !== undefined && w.target !== ALL && !(typeof w.target === 'string' && known.targets.includes(w.target)))
    p.push(`${where}: target "${String(w.target)}" is not configured (omit it, or "*", for every target)`);
  if (w.region !== undefined && w.region !== ALL && !(typeof w.region === 'string' && known.regions.includes(w.region)))
    p.push(`${where}: region "${String(w.region)}" is not configured (omit it, or "*", for every region)`);
  const times: Record<'start' | 'end', number | null> = { start: null, end: null };
  for (const key of ['start', 'end'] as const) {
    const v = w[key];
    if (typeof v !== 'string' || !ISO_WITH_ZONE.test(v) || Number.isNaN(Date.parse(v)))
      p.push(`${where}: ${key} must be an ISO 8601 time with its zone, like 2026-12-02T01:00:00Z`);
    else times[key] = Date.parse(v);
  }
  if (times.start !== null && times.end !== null) {
    if (times.end <= times.start) p.push(`${where}: end must come after start`);
    else if (times.end - times.start > MAX_WINDOW_DAYS * DAY_MS)
      p.push(`${where}: a window lasts at most ${MAX_WINDOW_DAYS} days (a longer one is an outage to report, not to mute)`);
  }
  if (typeof w.note !== 'string' || w.note.trim() === '' || w.note.length > MAX_NOTE_CHARS)
    p.push(`${where}: note must say why, in 1 to ${MAX_NOTE_CHARS} characters`);
  return p;
}

/** A checked window (windowProblems found nothing) as the keeper holds it. */
export function toWindow(w: MaintenanceConfig, id: string, source: MaintenanceWindow['source']): MaintenanceWindow {
  return {
    id,
    target: w.target ?? ALL,
    region: w.region ?? ALL,
    starts_at: Date.parse(w.start),
    ends_at: Date.parse(w.end),
    note: w.note.trim(),
    source,
  };
}

/** The configuration's windows, each with an id of its own (its place and start: stable while the list is). */
export function configWindows(list: readonly MaintenanceConfig[] | undefined): MaintenanceWindow[] {
  return (list ?? []).map((w, i) => toWindow(w, `config-${i}-${Date.parse(w.start)}`, 'config'));
}

/** The window covering this target in this region at `tick`, or null. */
export function coveringWindow(
  windows: readonly MaintenanceWindow[],
  target: string,
  region: string,
  tick: number,
): MaintenanceWindow | null {
  return (
    windows.find(
      (w) =>
        (w.target === ALL || w.target === target) && (w.region === ALL || w.region === region) && w.starts_at <= tick && tick < w.ends_at,
    ) ?? null
  );
}
