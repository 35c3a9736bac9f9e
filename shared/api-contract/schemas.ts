/**
 * The read API's answers as zod schemas: they document each answer in the OpenAPI document (document.ts), the
 * workers tests check every route's real answers against them (tests/workers/contract.test.ts), and
 * shared/api-types.ts derives its types from them, or is held to them (agree.ts). A shape defined in a module of
 * its own (a finding's rules, a paired result, a level report) is named here by the fields a reader relies on,
 * and open to the rest (`looseObject`), so its one definition stays where it is computed.
 */
import { z } from '@hono/zod-openapi';

const iso = z.string().openapi({ description: 'ISO 8601 time, UTC', example: '2026-12-02T12:00:00.000Z' });
const isoOrNull = iso.nullable();
const count = z.number().int().nonnegative();

/** Every error answer: a stable code, a message safe to show, and for a configuration error its problems. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({
        description:
          'bad_request, too_much_work, token_required, unauthorized, admin_disabled, rate_limited, read_budget_spent, not_found, beyond_retention, regions_unreachable, not_stored, config, internal',
        example: 'bad_request',
      }),
      message: z.string(),
      problems: z.array(z.string()).optional(),
    }),
  })
  .openapi('Error');

export const WindowSchema = z.object({ from: iso, to: iso }).openapi('Window');

export const RegionInfoSchema = z
  .object({
    code: z.string(),
    label: z.string(),
    location_hint: z.string(),
    samples: count,
    last_sample_at: isoOrNull,
    colos: z.array(z.object({ colo: z.string().nullable(), samples: count, outside_region: count })),
  })
  .openapi('RegionInfo');

export const SourceSchema = z.enum(['raw', 'rollups']);

export const RegionsDocSchema = z
  .object({ window: WindowSchema, regions: z.array(RegionInfoSchema), source: SourceSchema })
  .openapi('Regions');

export const TargetPriceSchema = z
  .object({
    input_per_mtokens: z.number().nonnegative(),
    output_per_mtokens: z.number().nonnegative(),
    currency: z.literal('USD'),
    as_of: z.string().openapi({ description: 'The day it was read, YYYY-MM-DD.' }),
    source: z.string().openapi({ description: "Where it was read: a pricing page's URL, or words." }),
  })
  .openapi('TargetPrice', {
    description: 'A list price per million tokens, dated and sourced (docs/MEASUREMENT.md, "Latency against price").',
  });

export const TargetInfoSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    provider: z.string(),
    api: z.string(),
    model: z.string(),
    endpoint_host: z.string(),
    reference: z.boolean(),
    prompt_cache: z.boolean().openapi({ description: 'It runs the prompt-cache variants (GET /api/v1/prompt-cache).' }),
    regions: z.array(z.string()),
    samples: count,
    last_sample_at: isoOrNull,
    price: TargetPriceSchema.nullable().openapi({
      description:
        "Its list price as configured (observatory.config.ts), null without one; the reference targets' are the demo's, illustrative.",
    }),
  })
  .openapi('TargetInfo');

export const TargetsDocSchema = z
  .object({ window: WindowSchema, targets: z.array(TargetInfoSchema), source: SourceSchema })
  .openapi('Targets');

export const PromptVariantInfoSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    prompt_tokens: z.number(),
    max_tokens: z.number(),
    prompt_cache: z.literal(true).optional().openapi({ description: 'A prompt-cache variant (its probes send the prompt twice).' }),
    warm_pass_of: z.string().optional().openapi({ description: 'On a second pass: the variant it is the second pass of.' }),
  })
  .openapi('PromptVariantInfo');

const failure = z.string().nullable();
const RegionDutiesSchema = z.object({
  region: z.string(),
  colo: z.string().nullable(),
  waiting: z.object({
    probes: count,
    samples_unwritten: count,
    rollups: count,
    evaluations: count,
    concurrency_runs: count,
    otlp_hours: count,
  }),
  errors: z.object({
    sample_writes: failure,
    rollups: failure,
    status_evaluation: failure,
    concurrency: failure,
    otlp: failure,
    archive: failure,
    burst_archive: failure,
    rollup_archive: failure,
  }),
  missing_secrets: z.array(z.string()),
  ticks: z.looseObject({}).openapi({ description: "The region's tick state (region-prober.ts ProberStatus.ticks)." }),
});

export const VendorPageSchema = z
  .object({
    page: z.string(),
    url: z.string().nullable(),
    targets: z.array(z.string()),
    watched_since: isoOrNull,
    changed_at: isoOrNull,
    error: z.object({ kind: z.string(), message: z.string(), since: iso }).nullable(),
  })
  .openapi('VendorPage');

const unreadable = z.object({ error: z.string() });

export const ViewAgeSchema = z.object({
  built_at: isoOrNull,
  age_seconds: z.number().nullable(),
  views: count,
  bytes: count,
  rows_read: count,
  error: z.string().nullable(),
});

export const HealthDocSchema = z
  .object({
    status: z.enum(['ok', 'degraded']),
    db: z.enum(['ok', 'unavailable']),
    last_tick_at: isoOrNull,
    schedule: z.string(),
    plan: z.enum(['free', 'paid']),
    spread: z.number(),
    limited_by: z.string().nullable(),
    regions: count,
    targets: count,
    prompt_variants: z.array(PromptVariantInfoSchema),
    simulated: z.boolean(),
    open_incidents: count.nullable(),
    incidents_unwritten: count.nullable(),
    notifications: z
      .union([unreadable, z.looseObject({})])
      .openapi({ description: "The status keeper's channels, pending and failed messages, recent attempts." }),
    duties: z.array(z.union([RegionDutiesSchema, z.object({ region: z.string(), error: z.string() })])),
    vendor_status: z.union([z.array(VendorPageSchema), unreadable]),
    views: z.union([z.record(z.string(), ViewAgeSchema), unreadable]),
  })
  .openapi('Health');

export const SampleRowSchema = z
  .looseObject({ id: z.number(), tick_id: z.number(), region: z.string(), target: z.string(), prompt_variant: z.string() })
  .openapi('Sample', { description: 'A raw sample: its columns as workers/observatory/db/sample-row.ts lists them.' });

export const SamplesDocSchema = z
  .object({ window: WindowSchema, samples: z.array(SampleRowSchema), next_cursor: z.number().nullable() })
  .openapi('Samples');

export const PercentileGroupSchema = z
  .object({
    region: z.string().optional(),
    target: z.string().optional(),
    prompt_variant: z.string().optional(),
    split_source: z.string().nullable().optional(),
    served_by: z.string().nullable().optional(),
    n: count,
    samples: count,
    errors: count,
    error_rate: z.number().nullable(),
  })
  .catchall(z.number().nullable())
  .openapi('PercentileGroup', { description: 'A group: its key, counts, and p50, p50_ci_low, p50_ci_high … for each percentile.' });

export const PercentilesDocSchema = z
  .object({
    metric: z.string(),
    by: z.array(z.string()),
    source: SourceSchema,
    window: WindowSchema,
    method_version: z.number(),
    method: z.string(),
    relative_error: z.number().optional(),
    groups: z.array(PercentileGroupSchema),
  })
  .openapi('Percentiles');

export const RollupsDocSchema = z
  .object({
    resolution: z.enum(['hour', 'day']),
    window: WindowSchema,
    method_version: z.number(),
    histogram: z.string(),
    relative_error: z.number(),
    rows: z.array(z.looseObject({ region: z.string(), target: z.string(), prompt_variant: z.string() })),
    next_cursor: z.number().nullable(),
  })
  .openapi('Rollups');

export const TimelinePointSchema = z.object({
  start: iso,
  probes: count,
  failures: count,
  errors: z.record(z.string(), count).openapi({ description: 'Failures per error class.' }),
  ttft_p50: z.number().nullable(),
  ttft_p95: z.number().nullable(),
});

export const TimelineSeriesSchema = z
  .object({ region: z.string(), target: z.string(), prompt_variant: z.string(), points: z.array(TimelinePointSchema) })
  .openapi('TimelineSeries');

export const TimelineDocSchema = z
  .object({
    window: WindowSchema,
    resolution: z.enum(['hour', 'day']),
    pooled: z.boolean(),
    method_version: z.number(),
    method: z.string(),
    relative_error: z.number(),
    series: z.array(TimelineSeriesSchema),
  })
  .openapi('Timeline');

const key = { region: z.string(), target: z.string(), prompt_variant: z.string() };

export const BurstsDocSchema = z
  .object({
    schedule: z.string().nullable(),
    levels: z.array(z.number()),
    runs: z.array(iso),
    method: z.string(),
    reports: z.array(z.object({ ...key, levels: z.array(z.looseObject({ level: z.number() })) })),
    streams: z.array(z.looseObject({})).optional().openapi({ description: 'With streams=true: every stream.' }),
  })
  .openapi('Bursts');

export const ComparisonSchema = z
  .looseObject({ region: z.string(), prompt_variant: z.string(), a: z.string(), b: z.string(), verdict: z.string() })
  .openapi('Comparison', { description: 'A against B (shared/stats/paired.ts PairedResult).' });

export const CompareDocSchema = z
  .object({ window: WindowSchema, figure: z.string(), margin_pct: z.number(), method: z.string(), comparisons: z.array(ComparisonSchema) })
  .openapi('Compare');

/** A page of stored rows (paired hours, hour profiles): its head, the rows and where the next page starts. */
const storedPage = (rowColumn: string) =>
  z.looseObject({
    window: WindowSchema,
    rows: z.array(z.looseObject({ region: z.string() }).openapi({ description: `A stored row; \`${rowColumn}\` as stored.` })),
    next_cursor: z.number().nullable(),
  });

export const PairedHoursDocSchema = storedPage('blocks').openapi('PairedHours');
export const HourProfilesDocSchema = storedPage('hours').openapi('HourProfiles');

export const TimeProfilesDocSchema = z
  .object({
    window: WindowSchema,
    cells: z.string(),
    rows: z.array(z.object({ ...key, cells: z.array(z.tuple([z.number(), z.number(), z.number().nullable()])) })),
  })
  .openapi('TimeProfiles');

const discount = z.looseObject({ verdict: z.string() }).openapi({ description: 'shared/rollup/cache-hours.ts CacheDiscount.' });

export const PromptCachesDocSchema = z
  .object({
    window: WindowSchema,
    margin_pct: z.number(),
    method: z.string(),
    caches: z.array(
      z.object({
        region: z.string(),
        target: z.string(),
        prompt_variant: z.string(),
        ttft: discount,
        server: discount,
        cached_tokens: z.object({ reported: count, hits: count, hit_rate: z.number().nullable(), mean: z.number().nullable() }),
      }),
    ),
  })
  .openapi('PromptCaches');

export const ChangesDocSchema = z
  .object({
    window: z.object({ from: iso, split: iso, to: iso }),
    margin_pct: z.number(),
    method: z.string(),
    changes: z.array(z.looseObject({ ...key, direction: z.string() })),
  })
  .openapi('Changes');

const PlacesRowKey = z.object(key);

export const ServedByDocSchema = z
  .object({
    window: WindowSchema,
    source: z.literal('rollups'),
    rows: z.array(PlacesRowKey.extend({ places: z.array(z.looseObject({})) })),
  })
  .openapi('ServedBy');

export const FidelityDocSchema = z
  .object({ window: WindowSchema, source: z.literal('rollups'), rows: z.array(z.looseObject(key)) })
  .openapi('Fidelity');

export const StatusDocSchema = z
  .object({
    generated_at: iso,
    rules: z.looseObject({}).openapi({ description: 'The status rules in force (shared/status/rules.ts).' }),
    targets: z.array(
      z.object({
        target: z.string(),
        label: z.string(),
        prompt_variant: z.string(),
        status: z.string(),
        regional_problems: z.array(z.object({ region: z.string(), state: z.string() })),
        regions: z.array(
          z.object({
            region: z.string(),
            region_label: z.string(),
            status: z.string(),
            since: isoOrNull,
            last_evaluated: isoOrNull,
            not_enough_data: z.boolean(),
            recovering: z.boolean(),
            evidence: z.looseObject({ rules: z.unknown(), baseline: z.unknown(), split_shift: z.unknown() }).nullable(),
          }),
        ),
      }),
    ),
    open_incidents: z.array(
      z.looseObject({
        id: z.string(),
        target: z.string(),
        prompt_variant: z.string(),
        severity: z.string(),
        scope: z.string(),
        regions: z.array(z.string()),
        opened_at: iso,
        updated_at: iso,
        summary: z.string(),
      }),
    ),
  })
  .openapi('Status');

export const IncidentSchema = z
  .looseObject({
    id: z.string(),
    target: z.string(),
    target_label: z.string(),
    status: z.enum(['open', 'resolved']),
    severity: z.string(),
    scope: z.string(),
    regions: z.array(z.string()),
    opened_at: iso,
    updated_at: iso,
    resolved_at: isoOrNull,
    timeline: z.array(z.looseObject({ at: iso, summary: z.string(), regions: z.array(z.looseObject({ words: z.string() })) })),
    points: z.array(z.unknown()).optional().openapi({ description: 'With points=true: the probes behind its chart.' }),
  })
  .openapi('Incident');

export const IncidentsDocSchema = z.object({ window: WindowSchema, incidents: z.array(IncidentSchema) }).openapi('Incidents');

export const StatusHistoryRowSchema = z
  .object({
    hour: iso.optional(),
    day: iso.optional(),
    target: z.string(),
    prompt_variant: z.string(),
    region: z.string(),
    operational: count,
    degraded: count,
    down: count,
    maintenance: count,
    no_data: count,
    late: count,
    note: z.string().nullable(),
  })
  .openapi('StatusHistoryRow');

export const StatusHistoryDocSchema = z
  .object({
    window: WindowSchema,
    resolution: z.enum(['hour', 'day']),
    counts: z.string(),
    rows: z.array(StatusHistoryRowSchema),
    next_cursor: z.string().nullable(),
  })
  .openapi('StatusHistory');

export const MaintenanceSchema = z
  .object({
    id: z.string(),
    target: z.string(),
    region: z.string(),
    start: iso,
    end: iso,
    note: z.string(),
    source: z.enum(['config', 'api']),
  })
  .openapi('MaintenanceWindow');

export const MaintenanceDocSchema = z.object({ from: iso, windows: z.array(MaintenanceSchema) }).openapi('MaintenanceWindows');
export const MaintenanceMadeSchema = z.object({ window: MaintenanceSchema });
export const MaintenanceBodySchema = z.object({
  target: z.string().optional(),
  region: z.string().optional(),
  start: iso,
  end: iso,
  note: z.string(),
});

export const UptimeDocSchema = z
  .object({
    month: z.string(),
    from: iso,
    to: iso,
    ttft_variant: z.string(),
    definitions: z.string(),
    rows: z.array(z.looseObject({ target: z.string() })),
  })
  .openapi('Uptime');

export const VendorIncidentSchema = z
  .object({
    page: z.string(),
    id: z.string(),
    name: z.string(),
    impact: z.string(),
    status: z.string(),
    components: z.array(z.string()),
    created_at: iso,
    started_at: isoOrNull,
    resolved_at: isoOrNull,
    updated_at: iso,
    updates: z.array(z.object({ status: z.string(), at: iso })),
    shortlink: z.string().nullable(),
    targets: z.array(z.string()),
  })
  .openapi('VendorIncident');

export const VendorIncidentsDocSchema = z
  .object({
    window: WindowSchema,
    slack_minutes: z.number(),
    method: z.string(),
    pages: z.array(VendorPageSchema),
    vendor_incidents: z.array(VendorIncidentSchema),
    probe_incidents: z.array(
      z.object({
        id: z.string(),
        target: z.string(),
        target_label: z.string(),
        prompt_variant: z.string(),
        status: z.enum(['open', 'resolved']),
        severity: z.string(),
        scope: z.string(),
        regions: z.array(z.string()),
        opened_at: iso,
        resolved_at: isoOrNull,
      }),
    ),
    matches: z.array(
      z.object({
        page: z.string(),
        vendor_incident: z.string(),
        incident: z.string(),
        target: z.string(),
        prompt_variant: z.string(),
        lead_ms: z.number(),
        lead_minutes: z.number(),
        words: z.string(),
      }),
    ),
    unseen_by_probes: z.array(z.object({ page: z.string(), id: z.string() })),
    unposted_by_vendor: z.array(z.string()),
  })
  .openapi('VendorIncidents');

/** The admin routes' answers: what each did (their modules define the detail). */
export const AdminAnswerSchema = z.looseObject({}).openapi('AdminAnswer');

/** A published version's entry in the reports' index (shared/reports/report.ts ReportVersionEntry), with its URL. */
export const ReportVersionEntrySchema = z
  .object({
    version: z.number().int().positive(),
    sha256: z.string().openapi({ description: 'SHA-256 of the version’s bytes, hex; its ETag' }),
    bytes: count,
    published_at: iso,
    corrects: z.object({ version: z.number().int().positive(), reason: z.string() }).nullable(),
    superseded_by: z.number().int().positive().nullable().openapi({ description: 'the version that corrects this one, once there is one' }),
    url: z.string(),
  })
  .openapi('ReportVersionEntry');

export const ReportIndexSchema = z
  .object({
    format: z.literal(1),
    weeks: z.array(
      z.object({
        week: z.string().openapi({ description: 'an ISO week, 2026-W48' }),
        window: WindowSchema,
        current: z.object({ version: z.number().int().positive(), url: z.string() }),
        versions: z.array(ReportVersionEntrySchema),
      }),
    ),
  })
  .openapi('ReportIndex');

/** A week's report as published (shared/reports/report.ts WeeklyReport): its key fields; the rest as stored. */
export const WeeklyReportSchema = z.looseObject({ week: z.string(), version: z.number().int().positive() }).openapi('WeeklyReport', {
  description: 'docs/REPORTS.md: the week’s verdicts per region × prompt variant, leaders, changes, incidents, data files',
});
