/** Configuration checks (every problem in words a user can act on) and plan capacity arithmetic. */
import { describe, expect, it } from 'vitest';
import { unstable_readConfig } from 'wrangler';
import { config } from '../../../observatory.config.ts';
import { ConfigError, validateConfig } from '../../../shared/config/validate.ts';
import { PLAN_LIMITS } from '../../../shared/config/plan-limits.ts';
import { capacity, freePlanGoal, maxProbesPerDay } from '../../../shared/config/capacity.ts';
import { API_REQUEST_READS_PER_PAIR, SITE_BUILD_VIEW_REQUESTS, SITE_REPORT_WEEKS } from '../../../shared/config/unit-costs.ts';
import { percentileViewPiecesAverage, SPAN_READS_PER_SEEK } from '../../../shared/config/view-costs.ts';
import { probesPerAlarm, probesPerTick, tickMinutesOf, tickSlice } from '../../../shared/config/schedule.ts';
import { targetVariantPairs } from '../../../shared/config/work-list.ts';
import { parseTrace } from '../../../workers/observatory/probe/colo.ts';
import { coloOutsideRegion } from '../../../shared/config/colos.ts';
import type { ObservatoryConfig, TargetConfig } from '../../../shared/config/types.ts';
import { reasoningBudgetWarnings } from '../../../shared/config/reasoning-budget.ts';
import { PROMPT_PRESETS, preset } from '../../../shared/config/presets.ts';
import { vendorTokens } from '../../../shared/config/vendor-tokens.ts';
import { burstCadence } from '../../../shared/config/bursts.ts';

function problems(change: (c: ObservatoryConfig) => void): string[] {
  const copy: ObservatoryConfig = structuredClone(config);
  change(copy);
  try {
    validateConfig(copy);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.problems;
  }
}

describe('observatory.config.ts', () => {
  it('the shipped configuration is valid', () => {
    expect(() => validateConfig(config)).not.toThrow();
  });

  it('its schedules (ticks, then concurrency runs) are the crons wrangler.toml declares, in every environment', () => {
    const local = unstable_readConfig({ config: 'wrangler.toml' }, { hideWarnings: true });
    const production = unstable_readConfig({ config: 'wrangler.toml', env: 'production' }, { hideWarnings: true });
    const crons = [config.schedule, ...(config.bursts ? [config.bursts.schedule] : [])];
    expect(local.triggers.crons).toEqual(crons);
    expect(production.triggers.crons).toEqual(crons);
  });

  const cases: Array<[string, (c: ObservatoryConfig) => void, string]> = [
    [
      'a bad schedule',
      (c) => {
        c.schedule = '*/7 * * * *';
      },
      'schedule "*/7 * * * *" must look like',
    ],
    [
      'no regions',
      (c) => {
        c.regions = [];
      },
      'at least one region',
    ],
    [
      'a bad location hint',
      (c) => {
        c.regions[0].locationHint = 'mars' as never;
      },
      'locationHint "mars" is not one of',
    ],
    [
      'a duplicate region',
      (c) => {
        c.regions.push({ ...c.regions[0] });
      },
      'region "weur" is listed twice',
    ],
    [
      'a key in a header',
      (c) => {
        c.targets[0].headers = { Authorization: 'Bearer sk-abc' };
      },
      'header "Authorization" would put a credential in the config',
    ],
    [
      'a key in the URL',
      (c) => {
        c.targets[0].url = 'https://api.example.com/v1?key=abc';
      },
      'url must not carry credentials',
    ],
    [
      'a key where the secret name goes',
      (c) => {
        c.targets[0].apiKeySecret = 'sk-live-123';
      },
      "apiKeySecret must be a secret's NAME",
    ],
    [
      'a header auth whose secret is a value',
      (c) => {
        c.targets[0].auth = { type: 'header', name: 'api-key', secret: 'abc-live-key' };
      },
      "auth.secret must be a secret's NAME",
    ],
    [
      'a header auth beside an apiKeySecret',
      (c) => {
        c.targets[0].apiKeySecret = 'AZURE_KEY';
        c.targets[0].auth = { type: 'header', name: 'api-key', secret: 'AZURE_KEY' };
      },
      'give the key once',
    ],
    [
      'SigV4 for a protocol that is not Bedrock',
      (c) => {
        c.targets[0].auth = { type: 'aws-sigv4', accessKeyIdSecret: 'AWS_ACCESS_KEY_ID', secretAccessKeySecret: 'AWS_SECRET_ACCESS_KEY' };
      },
      'it needs api bedrock-converse',
    ],
    [
      'SigV4 in a region that is not one',
      (c) => {
        c.targets[0].auth = {
          type: 'aws-sigv4',
          region: 'Frankfurt',
          accessKeyIdSecret: 'AWS_ACCESS_KEY_ID',
          secretAccessKeySecret: 'AWS_SECRET_ACCESS_KEY',
        };
      },
      'auth.region must be an AWS region',
    ],
    [
      'an unknown auth type',
      (c) => {
        c.targets[0].auth = { type: 'kerberos' } as never;
      },
      'auth.type must be header, aws-sigv4 or google-service-account',
    ],
    [
      'a service account with an unknown mode',
      (c) => {
        c.targets[0].auth = { type: 'google-service-account', secret: 'VERTEX_SA', mode: 'magic' as never };
      },
      'auth.mode must be token-exchange or self-signed',
    ],
    [
      'an unknown api',
      (c) => {
        c.targets[0].api = 'smoke-signals' as never;
      },
      'api "smoke-signals" is not one of',
    ],
    [
      'an unknown region on a target',
      (c) => {
        c.targets[0].regions = ['mars'];
      },
      'unknown region "mars"',
    ],
    [
      'a zero max_tokens',
      (c) => {
        c.promptVariants[0].maxTokens = 0;
      },
      'maxTokens must be a whole number from 1',
    ],
    [
      'timeouts out of order',
      (c) => {
        c.timeouts.headersMs = 90_000;
      },
      'headersMs ≤ firstTokenMs ≤ totalMs',
    ],
    [
      'too much concurrency',
      (c) => {
        c.concurrency = 6;
      },
      'concurrency must be 1, 2 or 3',
    ],
    [
      'a Server-Timing metric no response could keep',
      (c) => {
        c.targets[0].serverTimingMetrics = ['queue+pre fill!'];
      },
      'serverTimingMetrics entry "queue+pre fill!" must be metric names of letters',
    ],
  ];
  for (const [name, change, message] of cases) {
    it(`rejects ${name}`, () => expect(problems(change).join('\n')).toContain(message));
  }

  it('checks the OTLP export and the readers the capacity model counts', () => {
    expect(
      problems((c) => {
        c.otlp = { endpoint: 'https://otlp.example.com/v1/metrics', header: 'authorization', secret: 'OTLP_TOKEN' };
      }),
    ).toEqual([]);
    expect(
      problems((c) => {
        c.otlp = { endpoint: '{OTLP_ENDPOINT}' };
      }),
    ).toEqual([]);
    expect(
      problems((c) => {
        c.otlp = { endpoint: 'otlp.example.com' };
      })[0],
    ).toContain('otlp.endpoint must be an http(s) URL');
    expect(
      problems((c) => {
        c.otlp = { endpoint: 'https://x/v1/metrics', header: 'authorization' };
      })[0],
    ).toContain('otlp.header and otlp.secret go together');
    expect(
      problems((c) => {
        c.otlp = { endpoint: 'https://x/v1/metrics', header: 'bad header', secret: 'token' };
      }),
    ).toHaveLength(2);
    expect(
      problems((c) => {
        c.readers = { siteRebuildMinutes: -1, metricsScrapeSeconds: 1.5 };
      }),
    ).toHaveLength(2);
  });

  it('reports every problem at once', () => {
    expect(
      problems((c) => {
        c.schedule = 'hourly';
        c.concurrency = 0;
        c.targets[0].model = '';
      }),
    ).toHaveLength(3);
  });
});

describe('capacity', () => {
  /** The shipped regions and targets on one prompt variant each: the model's counts below, independent of the demo's variants. */
  // The default configuration's first 5 targets, one variant: the figures below are counted by hand for 3 × 5.
  const oneVariant: ObservatoryConfig = {
    ...config,
    bursts: undefined,
    promptVariants: config.promptVariants.slice(0, 1),
    targets: config.targets.slice(0, 5).map((t) => ({ ...t, promptVariants: undefined, bursts: undefined })),
  };

  it('counts every target × variant a target runs', () => {
    const pairs = targetVariantPairs(config);
    // A target's own variants (or all ordinary ones), and both passes of each prompt-cache variant when it opts in.
    const ordinary = config.promptVariants.filter((v) => !v.promptCache).map((v) => v.id);
    const cachePasses = config.promptVariants.filter((v) => v.promptCache).length * 2;
    expect(pairs.length).toBe(
      config.targets.reduce((n, t) => n + (t.promptVariants ?? ordinary).length + (t.promptCache ? cachePasses : 0), 0),
    );
    expect(probesPerTick(config)).toBe(config.regions.length * pairs.length);
    expect(probesPerTick(oneVariant)).toBe(config.regions.length * oneVariant.targets.length);
  });

  it('reads the schedule', () => {
    expect([
      tickMinutesOf('*/5 * * * *'),
      tickMinutesOf('* * * * *'),
      tickMinutesOf('0 * * * *'),
      tickMinutesOf('*/7 * * * *'),
      tickMinutesOf('0 0 * * *'),
    ]).toEqual([5, 1, 60, null, null]);
  });

  it('counts the default configuration against the free plan', () => {
    const c = capacity(oneVariant);
    // 3 regions × 5 targets × 1 variant × 288 ticks
    expect(c.probesPerDay).toBe(3 * 5 * 288);
    // 4 rows per sample; per hourly rollup (3 × 5 a hour) its row and its running total, then the row's retention
    // delete; per day a daily row per pair and its delete; per region (one variant, five targets) and hour the paired
    // comparisons' row and its delete.
    // And a time profile row per pair and day, and its delete; per pair and hour the status history's hour and day rows, and their deletes,
    // and the hour's place record and its delete; per region (one family) and day its packed paired day and its delete.
    expect(c.d1RowsWrittenPerDay).toBe(
      3 * 5 * 288 * 4 +
        3 * 5 * 24 * 3 +
        3 * 5 * 2 +
        3 * 24 * 2 +
        3 * 5 * 2 +
        3 * 5 * 24 * 4 +
        3 * 5 * 24 * 2 +
        3 * 2 +
        // Per pair and day its span rollups (shared/rollup/spans.ts): 21 of hours written, then deleted once their day
        // has left the recent ones, and about half of one of days (1/4 + … + 1/64), deleted with the first day
        // retention cuts from it; per region and hour its spans' mark.
        3 * 5 * (2 * 21 + 31 / 64) +
        3 * 5 * (31 / 64) +
        3 * 24,
    );
    // Each region's hourly rollup reads the hour's samples of all 3 regions, and per pair its previous row and total;
    // each region's day reads the day's hourly rows of all regions, and 3 per pair replacing its row, and its family's
    // 24 paired hours to pack them; the retention mark hourly.
    // And per region and day the parts its spans are written from, a seek each (the region's 5 pairs and 2 rows more):
    // 42 keys of its 21 spans of hours, 1 + 15/32 of its spans of days; the deletes of a day's spans of hours (pruned)
    // and of days (retention): a seek on each of 21 + 5 keys, and the rows deleted.
    expect(c.d1RowsRead.rollups).toBe(
      3 * 3 * 5 * 288 +
        3 * 5 * 24 * 2 +
        3 * 3 * 5 * 24 +
        3 * 5 * 3 +
        (42 + 1 + 15 / 32) * (3 * 5 + 3 * 2) +
        3 * 26 * 2 +
        3 * 5 * (21 + 31 / 64) +
        3 * 24 +
        3 * 24,
    );
    // A site build reads every view it shows (no D1 row) and, on the live path, 3 hours of raw samples read twice
    // (15 pairs × 36 ticks).
    expect(c.siteBuildRowsRead).toBe(15 * 36 * 2);
    expect(c.d1RowsRead.siteBuilds).toBe(24 * 15 * 36 * 2);
    // Its requests: every view it reads, a version of each weekly report it shows, and one page of samples.
    expect(c.siteBuildRequests).toBe(SITE_BUILD_VIEW_REQUESTS + SITE_REPORT_WEEKS + 1);
    // A /metrics scrape and an anonymous API request are answered from the views: the live path's 100 requests read D1.
    expect(c.d1RowsRead.metrics).toBe(0);
    expect(c.d1RowsRead.api).toBe(100 * 15 * API_REQUEST_READS_PER_PAIR);
    // The views' builds: their reads, and their DO rows (the builder's state, twice an alarm: 3 a tick, 2 an hour).
    expect(c.d1RowsRead.views).toBe(c.views.d1RowsReadPerDay);
    expect(c.views.doRowsWrittenPerDay).toBe(2 * (3 * 288 + 2 * 24));
    // A row per pair and a seek for each piece of its reads (shared/rollup/spans.ts): about 26 pieces a build, where
    // the hourly and daily rows alone were 24 + 11.5 + 90 rows a pair.
    expect(percentileViewPiecesAverage()).toBeGreaterThan(15);
    expect(percentileViewPiecesAverage()).toBeLessThan(30);
    expect(c.views.parts.percentiles).toEqual({
      buildsPerDay: 24,
      rowsReadPerBuild: (15 + SPAN_READS_PER_SEEK) * percentileViewPiecesAverage() + 5 * 3,
      viewsPerBuild: 4 * 9,
      doRequestsPerBuild: 0,
    });
    // Status rules: each region seeks its 6 lookback ticks (30 min) every tick, its 31 baseline hours every hour,
    // reading its 5 pairs and at most 2 more rows a seek.
    // And per pair and hour, writing the status history's day row reads the day's hours (26 on average, with its note).
    expect(c.d1RowsRead.status).toBe(288 * 6 * (3 * 5 + 3 * 2) + 24 * 31 * (3 * 5 + 3 * 2) + 3 * 5 * 24 * 26);
    // The daily archive: yesterday's and the cut day's samples counted (each read twice), per region two scans of a day's
    // samples (its file, its delete), the files' rows sorted; in R2 per region a manifest GET and two HEADs, the file's PUT and the manifest's.
    // And the hourly rollups of the 7 days before the cut counted (twice a row), a day's file per region (a scan of the day's
    // rows of all regions, its own sorted); in R2 per region their PUTs, the manifest's GET and a HEAD per archived day.
    // And the rollups' retention: the day it cuts counted (twice a row), a delete per region that scans the day's rows of
    // all regions; in R2 per region the manifest's GET, the day's HEAD and an older file's. And the run's own manifest reads,
    // one per table of samples.
    expect(c.d1RowsRead.archive).toBe(3 * 5 * 288 * (2 * 2 + 3 * 2 + 1) + 3 * 5 * 24 * (7 * 2 + 3 + 1) + 3 * 5 * 24 * (2 + 3));
    expect(c.archive).toMatchObject({ r2ClassAPerDay: 2 * 3 * 2, r2ClassBPerDay: 3 * 3 + 3 * (1 + 6 + 1) + 3 * 3 + 2 });
    expect(c.d1RowsReadPerDay).toBe(
      c.d1RowsRead.rollups +
        c.d1RowsRead.status +
        c.d1RowsRead.siteBuilds +
        c.d1RowsRead.metrics +
        c.d1RowsRead.api +
        c.d1RowsRead.archive +
        c.d1RowsRead.views,
    );
    // Per probe its job (2), its pair's state in the status keeper and its tick in the history (2); per region hour and day the
    // rollup marks; per region tick its evaluation mark (3) and the heartbeat (2); per target and tick where its incident stepped (1).
    // … and per target-variant and tick, the keeper's 3: the tick waiting for its regions, its removal, the frontier.
    // … and the public views' builder (c.views); per region and day each dirty span rollup marked and cleared.
    expect(c.doRowsWrittenPerDay).toBe(
      3 * 5 * 288 * 4 + 3 * (24 * 2 + 2 + 2 * (21 + 31 / 64)) + 3 * 288 * (3 + 2) + 5 * 288 * 3 + c.views.doRowsWrittenPerDay,
    );
    // Per region and tick: its 5 probes in one alarm (3 at a time, 6 an alarm at most) that also rolls up and
    // evaluates, the scheduler's RPC and the report to the status keeper.
    expect(probesPerAlarm(oneVariant)).toBe(6);
    expect(c.doRequestsPerDay).toBe(3 * 288 + 2 * 3 * 288 + c.views.doRequestsPerDay);
    expect(c.subrequestsPerProbeInvocation).toBe(6 * (1 + 2) + 2);
    expect(c.spread).toBe(1);
    expect(c.bindingLimit).toBeNull();
  });

  it('fits the free plan at 6 regions × 10 targets every 5 minutes with hourly site builds', () => {
    const goal = freePlanGoal(config);
    expect([goal.regions.length, goal.targets.length, goal.promptVariants.length, goal.schedule, goal.readers?.siteRebuildMinutes]).toEqual(
      [6, 10, 1, '*/5 * * * *', 60],
    );
    const c = capacity(goal);
    expect(c.spread).toBe(1);
    expect(c.d1RowsWrittenPerDay).toBeLessThan(PLAN_LIMITS.free.d1RowsWrittenPerDay);
    expect(c.d1RowsReadPerDay).toBeLessThan(PLAN_LIMITS.free.d1RowsReadPerDay);
    expect(c.doRowsWrittenPerDay).toBeLessThan(PLAN_LIMITS.free.doRowsWrittenPerDay);
    expect(c.doGbSecondsPerDay).toBeLessThan(PLAN_LIMITS.free.doGbSecondsPerDay);
    // Hourly builds of the old site (every raw sample of 7 days, ~17 rows read each) would have read 17 × 7 × 17,280 rows a
    // build; reading the views, a build reads only its raw slice: hundreds of times fewer.
    expect(c.d1RowsRead.siteBuilds).toBeLessThan((24 * 17 * 7 * 17_280) / 400);
  });

  it('counts a tick as long as its busiest target probed one probe after another, whatever the lanes', () => {
    const variants = Array.from({ length: 12 }, (_, i) => ({ id: `v${i}`, label: `V${i}`, promptTokens: 16, maxTokens: 8 }));
    const base: ObservatoryConfig = {
      ...oneVariant,
      plan: 'paid',
      regions: oneVariant.regions.slice(0, 1),
      concurrency: 3,
      probeSecondsEstimate: 30,
      promptVariants: variants,
    };
    // One target with 12 variants: 12 × 30 s one after another, over the 5-minute tick's busy share (240 s).
    const oneTarget = capacity({ ...base, targets: base.targets.slice(0, 1) });
    expect(oneTarget.bindingLimit).toContain('tick length');
    expect(oneTarget.spread).toBeGreaterThan(1);
    // Twelve targets with a variant each: three lanes at once, 4 × 30 s.
    const twelveTargets = capacity({
      ...base,
      promptVariants: variants.slice(0, 1),
      targets: variants.map((_v, i) => ({ ...base.targets[0], id: `t${i}`, promptVariants: undefined })),
    });
    expect(twelveTargets.spread).toBe(1);
  });

  it('spreads a tick over several when the free plan would be exceeded', () => {
    const big: ObservatoryConfig = structuredClone(oneVariant);
    for (let i = 0; i < 40; i++) big.targets.push({ ...oneVariant.targets[0], id: `t${i}` });
    const c = capacity(big);
    // 45 targets × 3 regions × 288 × 4 rows = 155,520 rows written a day > 100,000; the Durable Objects' rows
    // written grow faster still (the status keeper's 3 per target and tick besides each probe's) and bind first: a
    // little over twice the free plan's 100,000 with the public views' builder, so each tick runs a third.
    expect(c.d1RowsWrittenPerDay).toBeGreaterThan(PLAN_LIMITS.free.d1RowsWrittenPerDay);
    expect(c.bindingLimit).toBe('Durable Object storage rows written per day');
    expect(c.doRowsWrittenPerDay / PLAN_LIMITS.free.doRowsWrittenPerDay).toBeGreaterThan(2);
    expect(c.spread).toBe(3);
    expect(capacity({ ...big, plan: 'paid' }).spread).toBe(1);
  });

  it('lets consecutive ticks take turns at the slices', () => {
    const five = 300_000;
    const t0 = 1_767_225_600_000;
    expect([0, 1, 2, 3, 4].map((i) => tickSlice(t0 + i * five, 5, 3))).toEqual([0, 1, 2, 0, 1].map((k) => (k + ((t0 / five) % 3)) % 3));
    expect(tickSlice(t0, 5, 1)).toBe(0);
  });

  it('gives the per-day ceilings docs/COSTS.md quotes', () => {
    expect(maxProbesPerDay('free', 4)).toBe(25_000);
    // Paid: what the included usage covers (Durable Object duration binds first); beyond it usage is billed.
    expect(maxProbesPerDay('paid', 4)).toBe(26_666);
  });
});

describe('colo detection', () => {
  it('reads the colo from a /cdn-cgi/trace body', () => {
    expect(parseTrace('fl=28f123\nh=www.cloudflare.com\nip=192.0.2.1\nts=1767225600.1\ncolo=FRA\nhttp=http/2\n')).toBe('FRA');
    expect(parseTrace('<html>nope</html>')).toBeNull();
  });
});

describe('colo flags', () => {
  it('knows inside, outside and unknown', () => {
    expect(coloOutsideRegion('FRA', 'weur')).toBe(false);
    expect(coloOutsideRegion('IAD', 'weur')).toBe(true);
    expect(coloOutsideRegion('XYZ', 'weur')).toBeNull();
    expect(coloOutsideRegion(null, 'weur')).toBeNull();
  });
});

describe('reasoning budget warnings (npm run capacity)', () => {
  const base = {
    ...config,
    promptVariants: [
      { id: 'short', label: 'Short', promptTokens: 100, maxTokens: 64 },
      { id: 'long', label: 'Long', promptTokens: 100, maxTokens: 4_096 },
    ],
  };
  const target = (over: Partial<TargetConfig>): TargetConfig => ({
    id: 't',
    label: 'T',
    provider: 'P',
    api: 'openai-chat',
    url: 'https://example.test/v1/chat/completions',
    model: 'gpt-4o-mini',
    ...over,
  });
  const warned = (t: TargetConfig) => reasoningBudgetWarnings({ ...base, targets: [t] }).map((w) => w.variant);

  it('warns for a reasoning model with a small budget and nothing bounding its reasoning', () => {
    expect(warned(target({ model: 'o4-mini' }))).toEqual(['short']);
    expect(warned(target({ model: 'gemini-2.5-flash', api: 'gemini' }))).toEqual(['short']);
    expect(warned(target({ model: 'my-model', reasoning: true }))).toEqual(['short']);
    expect(reasoningBudgetWarnings({ ...base, targets: [target({ model: 'o3' })] })[0].message).toContain('no_answer');
  });
  it('is quiet for a bounded effort or budget, a large budget, or a model that does not reason', () => {
    expect(warned(target({ model: 'o4-mini', extraBody: { reasoning_effort: 'low' } }))).toEqual([]);
    expect(warned(target({ model: 'o4-mini', api: 'openai-responses', extraBody: { reasoning: { effort: 'minimal' } } }))).toEqual([]);
    expect(
      warned(
        target({ model: 'claude-sonnet-4-5', api: 'anthropic-messages', extraBody: { thinking: { type: 'enabled', budget_tokens: 32 } } }),
      ),
    ).toEqual([]);
    expect(
      warned(
        target({
          model: 'gemini-2.5-flash',
          api: 'gemini',
          extraBody: { generationConfig: { maxOutputTokens: 64, thinkingConfig: { thinkingBudget: 0 } } },
        }),
      ),
    ).toEqual([]);
    expect(warned(target({ model: 'o4-mini', extraBody: { reasoning_effort: 'high' } }))).toEqual(['short']);
    expect(warned(target({ model: 'gpt-4o-mini' }))).toEqual([]);
    expect(warned(target({ model: 'o4-mini', reasoning: false }))).toEqual([]);
    expect(warned(target({ model: 'o4-mini', promptVariants: ['long'] }))).toEqual([]);
  });
  it('the demo configuration probes its reasoning models with bounded reasoning', () => {
    expect(reasoningBudgetWarnings(config)).toEqual([]);
  });
});

describe('workload presets and vendor tokens', () => {
  it('ships presets from code completion to long context, each a valid variant', () => {
    expect(Object.keys(PROMPT_PRESETS)).toEqual(['code', 'chat', 'summary', 'long-context', 'prompt-cache']);
    expect(preset('long-context').promptTokens).toBeGreaterThan(preset('summary').promptTokens);
    expect(preset('chat', { id: 'chat-long', maxTokens: 200 })).toMatchObject({ id: 'chat-long', promptTokens: 200, maxTokens: 200 });
    expect(() => validateConfig({ ...config, promptVariants: Object.values(PROMPT_PRESETS).map((p) => ({ ...p })) })).not.toThrow();
  });

  it('counts tokens per day per target, bursts included, and the money at a list price', () => {
    const one: ObservatoryConfig = {
      ...config,
      regions: config.regions.slice(0, 2),
      promptVariants: [preset('chat'), preset('code')],
      bursts: { schedule: '2 * * * *', levels: [1, 4] },
      targets: [
        {
          ...config.targets[0],
          promptVariants: ['chat', 'code'],
          bursts: true,
          reference: false,
          price: { inputPerMTokens: 0.15, outputPerMTokens: 0.6, currency: 'USD', asOf: '2026-12-01', source: 'test' },
        },
      ],
    };
    const [t] = vendorTokens(one).targets;
    // 2 regions × 288 ticks × (chat + code), plus per region 24 runs a day of 1 + 4 streams of the first variant (chat).
    const ticks = 2 * 288;
    const bursts = 2 * 24 * 5;
    expect(t.probesPerDay).toBe(ticks * 2 + bursts);
    expect(t.burstStreamsPerDay).toBe(bursts);
    expect(t.inputTokensPerDay).toBe(ticks * (200 + 1_000) + bursts * 200);
    expect(t.outputTokensPerDay).toBe(ticks * (64 + 24) + bursts * 64);
    expect(t.dollarsPerDay).toBeCloseTo((t.inputTokensPerDay * 0.15 + t.outputTokensPerDay * 0.6) / 1e6, 9);
    expect(vendorTokens(one).unpriced).toEqual([]);
  });

  it('checks a price: amounts, currency, the day it was read and its source', () => {
    const ok = { inputPerMTokens: 0.15, outputPerMTokens: 0.6, currency: 'USD', asOf: '2026-12-01', source: 'https://example.com/pricing' };
    const priced = (price: unknown) =>
      problems((c) => {
        c.targets[0].price = price as TargetConfig['price'];
      });
    expect(priced(ok)).toEqual([]);
    expect(priced({ ...ok, inputPerMTokens: 0, outputPerMTokens: 0 })).toEqual([]);
    expect(priced({ ...ok, outputPerMTokens: -0.5 })).toEqual([
      `target "${config.targets[0].id}": price.outputPerMTokens is negative (-0.5); a price is from 0 to 10000 US dollars per million tokens`,
    ]);
    expect(priced({ ...ok, inputPerMTokens: 15_000 })).toEqual([expect.stringContaining('price per thousand?')]);
    expect(priced({ ...ok, inputPerMTokens: undefined })).toEqual([expect.stringContaining('price.inputPerMTokens is required')]);
    expect(priced({ ...ok, inputPerMTokens: Number.NaN })).toEqual([expect.stringContaining('price.inputPerMTokens is required')]);
    expect(priced({ ...ok, currency: 'EUR' })).toEqual([expect.stringContaining("price.currency must be 'USD'")]);
    expect(priced({ ...ok, asOf: undefined })).toEqual([expect.stringContaining('price.asOf is required')]);
    for (const asOf of ['2026-02-30', '2026-13-01', '01/12/2026', '2026-12-1', '2026-12-01T00:00:00Z', 20261201])
      expect(priced({ ...ok, asOf }), String(asOf)).toEqual([expect.stringContaining('price.asOf must be a day written YYYY-MM-DD')]);
    expect(priced({ ...ok, asOf: '2028-02-29' })).toEqual([]);
    expect(priced({ ...ok, source: ' ' })).toEqual([expect.stringContaining('price.source is required')]);
    expect(priced({ ...ok, perMTokens: 1 })).toEqual([expect.stringContaining('price.perMTokens is not a field')]);
    // Every problem at once.
    expect(priced({ inputPerMTokens: -1, outputPerMTokens: 1 })).toHaveLength(4);
  });

  it('prices the demo: every reference target but one, each labelled illustrative, none counted as money', () => {
    const unpriced = config.targets.filter((t) => !t.price).map((t) => t.id);
    expect(unpriced).toHaveLength(1);
    for (const t of config.targets.filter((x) => x.price)) {
      expect(t.reference).toBe(true);
      expect(t.price!.source).toMatch(/demo: an illustrative price, not a real vendor price/);
    }
    expect(vendorTokens(config).targets.every((t) => t.dollarsPerDay === null)).toBe(true);
  });

  it('checks prices and the burst schedule', () => {
    // From a configuration without concurrency probes.
    const bad = (f: (c: ObservatoryConfig) => void) =>
      problems((c) => {
        c.bursts = undefined;
        for (const t of c.targets) t.bursts = undefined;
        f(c);
      });
    expect(
      bad((c) => {
        c.targets[0].price = { inputPerMTokens: -1, outputPerMTokens: 1, currency: 'USD', asOf: '2026-12-01', source: 'test' };
      }),
    ).toEqual([expect.stringContaining('price.inputPerMTokens is negative')]);
    expect(
      bad((c) => {
        c.targets[0].bursts = true;
      }),
    ).toEqual([expect.stringContaining('no bursts schedule')]);
    expect(
      bad((c) => {
        c.targets[0].bursts = true;
        c.bursts = { schedule: '*/5 * * * *' };
      }),
    ).toEqual([expect.stringContaining('hourly')]);
    expect(
      bad((c) => {
        c.targets[0].bursts = true;
        c.bursts = { schedule: '10 * * * *' };
      }),
    ).toEqual([expect.stringContaining('when a tick starts')]);
    expect(
      bad((c) => {
        c.targets[0].bursts = true;
        c.bursts = { schedule: '2 * * * *', levels: [1, 8, 4] };
      }),
    ).toEqual([expect.stringContaining('ascend')]);
    expect(
      bad((c) => {
        c.targets[0].bursts = true;
        c.bursts = { schedule: '2 3 * * *', levels: [2, 4] };
      }),
    ).toEqual([expect.stringContaining('start at 1')]);
    expect(
      bad((c) => {
        c.targets[0].bursts = true;
        c.bursts = { schedule: '2 3 * * *', levels: [1, 64] };
      }),
    ).toEqual([expect.stringContaining('from 1 to 32')]);
    expect(
      bad((c) => {
        c.bursts = { schedule: '2 * * * *' };
        for (const t of c.targets) t.bursts = false;
      }),
    ).toEqual([expect.stringContaining('no target opts in')]);
    expect(burstCadence('7 * * * *')).toBe('hourly');
    expect(burstCadence('7 4 * * *')).toBe('daily');
    expect(burstCadence('7 4 * * 1')).toBeNull();
  });
});

describe('the concurrency probes in the capacity model', () => {
  it('counts their streams, rows, requests and duration, and keeps them out of the spread', () => {
    const base: ObservatoryConfig = { ...config, bursts: undefined, targets: config.targets.map((t) => ({ ...t, bursts: undefined })) };
    const withBursts: ObservatoryConfig = {
      ...base,
      bursts: { schedule: '2 * * * *', levels: [1, 4, 8, 16] },
      targets: base.targets.map((t, i) => ({ ...t, bursts: i < 2 })),
    };
    const b = capacity(withBursts).bursts;
    // 3 regions × 2 targets, 24 runs a day, 29 streams a run; runners per run 1 + 1 + 2 + 4 = 8.
    expect(b.streamsPerDay).toBe(6 * 24 * 29);
    expect(b.d1RowsWrittenPerDay).toBe(6 * 24 * 29 * 4);
    expect(b.doRequestsPerDay).toBe(24 * (3 + 6 * (1 + 8)));
    expect(b.doRowsWrittenPerDay).toBe(24 * 6 * 2);
    expect(capacity(withBursts).d1RowsWrittenPerDay - capacity(base).d1RowsWrittenPerDay).toBe(b.d1RowsWrittenPerDay);
    expect(capacity(base).bursts.streamsPerDay).toBe(0);
  });
});

describe('the site-rebuild workflow', () => {
  it('asks for no more than reading the repository', async () => {
    const { readFileSync } = await import('node:fs');
    const workflow = readFileSync(new URL('../../../.github/workflows/site-rebuild.yml', import.meta.url), 'utf8');
    expect(workflow).toMatch(/^permissions:\n {2}contents: read\n/m);
    expect(workflow).not.toMatch(/: write/);
  });
});
