/**
 * Vendors' incidents as an Atlassian Statuspage publishes them (`GET <page>/api/v2/incidents.json`: the 50
 * most recent, resolved or not, each with its updates and the components it affects), read into the few
 * fields the observatory keeps, every one bounded. Pure: the poll itself is statuspage-poll.ts.
 */
import { MINUTE_MS } from '../time.ts';

/** Where a Statuspage lists its incidents, below the page's address. */
export const STATUSPAGE_INCIDENTS_PATH = '/api/v2/incidents.json';
/** Each distinct page is polled at most this often (on the ticks that start such a period). */
export const VENDOR_POLL_MS = 5 * MINUTE_MS;
/** A poll (headers and the whole body) that takes longer is given up, as `timeout`. */
export const VENDOR_POLL_TIMEOUT_MS = 10_000;
/** A body larger than this is not read further, as `too_large` (a real page's 50 incidents are 50–600 KB). */
export const VENDOR_BODY_MAX_BYTES = 1024 * 1024;
/**
 * What a body may list before any entry of it is read, or it is refused as `too_large`: incidents (a page lists 50),
 * updates of one incident, components of one list (an incident's, or an update's affected ones), and entries of all
 * those lists together. A real entry takes at least about 100 bytes (an affected component's code, name and two
 * states), so no real body within VENDOR_BODY_MAX_BYTES reaches the last cap; a crafted one of tiny entries would
 * reach 10 to 40 ms of CPU without them (npm run bench:duties).
 */
export const VENDOR_MAX_LISTED_INCIDENTS = 250;
export const VENDOR_MAX_LISTED_UPDATES = 500;
export const VENDOR_MAX_LISTED_COMPONENTS = 500;
export const VENDOR_MAX_LISTED_ENTRIES = 20_000;
/** Incidents kept from one poll: the newest by creation. */
export const VENDOR_INCIDENTS_PER_POLL = 50;
/** Updates kept per incident (the first ones and the last), components per incident, characters of a name. */
export const VENDOR_UPDATES_PER_INCIDENT = 20;
export const VENDOR_COMPONENTS_PER_INCIDENT = 20;
export const VENDOR_TEXT_MAX_CHARS = 200;

/** Statuspage's impact levels; anything else is stored as `unknown`. */
export const VENDOR_IMPACTS = ['none', 'minor', 'major', 'critical', 'maintenance'] as const;
export type VendorImpact = (typeof VENDOR_IMPACTS)[number] | 'unknown';

export interface VendorIncidentUpdate {
  /** investigating, identified, monitoring, resolved, postmortem … as the vendor wrote it. */
  status: string;
  at: number;
}

export interface VendorIncident {
  /** The vendor's incident id. */
  id: string;
  name: string;
  impact: VendorImpact;
  status: string;
  /** Names of the components it affects. */
  components: string[];
  /** When the vendor posted it. */
  created_at: number;
  /** When the vendor says it began (may be set back before created_at); null when not given. */
  started_at: number | null;
  resolved_at: number | null;
  updated_at: number;
  /** Oldest first. */
  updates: VendorIncidentUpdate[];
  /** The vendor's link to it (http or https only), or null. */
  shortlink: string | null;
}

/** Not an incidents list (a `malformed` poll). */
export class StatuspageFormatError extends Error {}
/** An incidents list past a count cap (a `too_large` poll): none of it is read. */
export class StatuspageTooLargeError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** Published text: one line, no control characters or lone surrogates (not allowed in XML, the feed's format), cut to length by code point. */
function text(v: unknown): string {
  if (typeof v !== 'string') return '';
  const clean = v
    .slice(0, 4 * VENDOR_TEXT_MAX_CHARS)
    .replace(/\s+/g, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f\ufffe\uffff]|\p{Cs}/gu, '')
    .trim();
  return [...clean].slice(0, VENDOR_TEXT_MAX_CHARS).join('');
}
const word = (v: unknown): string => (typeof v === 'string' && /^[a-z_]{1,32}$/.test(v) ? v : 'unknown');

function time(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

function link(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > VENDOR_TEXT_MAX_CHARS) return null;
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/** The first VENDOR_COMPONENTS_PER_INCIDENT distinct names, the incident's own list first: each raw name cleaned once, none past the last kept. */
function componentNames(i: Record<string, unknown>): string[] {
  const names = new Set<string>();
  const seen = new Set<unknown>();
  const add = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const c of list) {
      if (names.size === VENDOR_COMPONENTS_PER_INCIDENT) return;
      const raw = isObject(c) ? c.name : undefined;
      if (seen.has(raw)) continue;
      seen.add(raw);
      const name = text(raw);
      if (name) names.add(name);
    }
  };
  add(i.components);
  if (Array.isArray(i.incident_updates)) for (const u of i.incident_updates) if (isObject(u)) add(u.affected_components);
  return [...names];
}

function updatesOf(i: Record<string, unknown>): VendorIncidentUpdate[] {
  if (!Array.isArray(i.incident_updates)) return [];
  const all = i.incident_updates
    .filter(isObject)
    .map((u) => ({ status: word(u.status), at: time(u.display_at) ?? time(u.created_at) }))
    .filter((u): u is VendorIncidentUpdate => u.at !== null)
    .sort((a, b) => a.at - b.at);
  // A long incident keeps its first updates (how it was posted) and its last (how it ended).
  return all.length <= VENDOR_UPDATES_PER_INCIDENT ? all : [...all.slice(0, VENDOR_UPDATES_PER_INCIDENT - 1), all.at(-1)!];
}

/** An entry's id and creation time, or null when it has not both (it is skipped). */
function keyOf(v: unknown): { v: Record<string, unknown>; id: string; created: number } | null {
  if (!isObject(v)) return null;
  const id = typeof v.id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(v.id) ? v.id : null;
  const created = time(v.created_at);
  return id === null || created === null ? null : { v, id, created };
}

function incidentOf({ v, id, created }: NonNullable<ReturnType<typeof keyOf>>): VendorIncident {
  const impact = (VENDOR_IMPACTS as readonly string[]).includes(v.impact as string) ? (v.impact as VendorImpact) : 'unknown';
  return {
    id,
    name: text(v.name) || id,
    impact,
    status: word(v.status),
    components: componentNames(v),
    created_at: created,
    started_at: time(v.started_at),
    resolved_at: time(v.resolved_at),
    updated_at: time(v.updated_at) ?? created,
    updates: updatesOf(v),
    shortlink: link(v.shortlink),
  };
}

export interface ParsedIncidents {
  /** Newest first, at most VENDOR_INCIDENTS_PER_POLL. */
  incidents: VendorIncident[];
  /** How many the page listed. */
  listed: number;
  /** Listed but unusable (no id or no creation time). */
  skipped: number;
}

const count = (n: number) => n.toLocaleString('en-US');
const lengthOf = (v: unknown) => (Array.isArray(v) ? v.length : 0);

/** Throws StatuspageTooLargeError when a list, or all of them together, pass their caps: only lengths are read. */
function checkCounts(incidents: unknown[]): void {
  if (incidents.length > VENDOR_MAX_LISTED_INCIDENTS)
    throw new StatuspageTooLargeError(
      `it lists ${count(incidents.length)} incidents, over the ${VENDOR_MAX_LISTED_INCIDENTS} read at most`,
    );
  let entries = incidents.length;
  const over = (n: number, max: number, what: string, k: number) => {
    if (n > max) throw new StatuspageTooLargeError(`its incident #${k + 1} lists ${count(n)} ${what}, over the ${max} read at most`);
  };
  incidents.forEach((i, k) => {
    if (!isObject(i)) return;
    const components = lengthOf(i.components);
    over(components, VENDOR_MAX_LISTED_COMPONENTS, 'components', k);
    const updates = Array.isArray(i.incident_updates) ? i.incident_updates : [];
    over(updates.length, VENDOR_MAX_LISTED_UPDATES, 'updates', k);
    entries += components + updates.length;
    for (const u of updates) {
      const affected = isObject(u) ? lengthOf(u.affected_components) : 0;
      over(affected, VENDOR_MAX_LISTED_COMPONENTS, 'affected components in one update', k);
      entries += affected;
    }
    if (entries > VENDOR_MAX_LISTED_ENTRIES)
      throw new StatuspageTooLargeError(
        `its lists hold more than ${count(VENDOR_MAX_LISTED_ENTRIES)} entries in all (incidents, updates and components), the most read`,
      );
  });
}

/**
 * An incidents.json body, already parsed as JSON; throws StatuspageFormatError when it is not an incidents list and
 * StatuspageTooLargeError when it lists more than the caps allow (checked before any entry is read).
 */
export function parseIncidents(body: unknown): ParsedIncidents {
  if (!isObject(body) || !Array.isArray(body.incidents))
    throw new StatuspageFormatError('not a Statuspage incidents list (no "incidents" array)');
  checkCounts(body.incidents);
  // The newest are chosen by id and time alone: only the kept ones are read further.
  const usable = body.incidents
    .map(keyOf)
    .filter((k) => k !== null)
    .sort((a, b) => b.created - a.created || a.id.localeCompare(b.id));
  return {
    incidents: usable.slice(0, VENDOR_INCIDENTS_PER_POLL).map(incidentOf),
    listed: body.incidents.length,
    skipped: body.incidents.length - usable.length,
  };
}

/** An incidents.json body as received (at most VENDOR_BODY_MAX_BYTES): decoded, parsed and read, or one of the two errors. */
export function parseIncidentsBody(bytes: Uint8Array): ParsedIncidents {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new StatuspageFormatError(`its body is not JSON (${(e as Error).message})`);
  }
  return parseIncidents(json);
}

/** A short fingerprint of what is kept of an incident (FNV-1a of its JSON): a poll rewrites only incidents whose fingerprint changed. */
export function incidentFingerprint(i: VendorIncident): string {
  const s = JSON.stringify(i);
  let h = 0x811c9dc5;
  for (let k = 0; k < s.length; k++) {
    h ^= s.charCodeAt(k);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}
