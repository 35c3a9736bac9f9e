/**
 * The Durable Objects' own schemas: each object, created in workerd, holds exactly the tables, columns
 * (type, NOT NULL, default, key) and indexes listed here. A table, column or index renamed, added or
 * dropped in a duty's CREATE TABLE (prober/duties.ts, the keeper, the notification outbox, ...) fails this
 * test until the list is changed with it: the objects' stored data outlive any deploy, so a change to them is
 * a migration to write (an `upgrade`, as jobs' columns have), never a silent edit.
 */
import { describe, expect, it } from 'vitest';
import { env, runInDurableObject } from 'cloudflare:test';
import { PROBER_DUTIES } from '../../workers/observatory/prober/duties.ts';
import { META_TABLES } from '../../workers/observatory/duty/prober-store.ts';
import { KEEPER_TABLES } from '../../workers/observatory/keeper/status-keeper.ts';
import type { KeeperDuty } from '../../workers/observatory/keeper/keeper-duty.ts';

const created = (statements: readonly string[]) => statements.map((s) => /CREATE TABLE IF NOT EXISTS (\w+)/.exec(s)?.[1]);

type Row = Record<string, SqlStorageValue>;

/** One object's schema in words: each table's columns as `name TYPE[ NOT NULL][ DEFAULT x][ PKn]`, and its indexes. */
type Schema = Record<string, { columns: string[]; indexes?: string[] }>;

function schemaOf(sql: SqlStorage): Schema {
  const schema: Schema = {};
  const tables = sql
    .exec<Row>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name")
    .toArray()
    .map((r) => String(r.name));
  for (const table of tables) {
    const columns = sql
      .exec<Row>(`PRAGMA table_info(${table})`)
      .toArray()
      .map(
        (c) =>
          `${c.name} ${c.type}${c.notnull ? ' NOT NULL' : ''}${c.dflt_value === null ? '' : ` DEFAULT ${c.dflt_value}`}${Number(c.pk) > 0 ? ` PK${c.pk}` : ''}`,
      );
    const indexes = sql
      .exec<Row>(`PRAGMA index_list(${table})`)
      .toArray()
      .map((i) => {
        const on = sql
          .exec<Row>(`PRAGMA index_info(${String(i.name)})`)
          .toArray()
          .map((c) => String(c.name));
        return `${i.origin}${i.unique ? ' unique' : ''} (${on.join(', ')})`;
      })
      .sort();
    schema[table] = indexes.length > 0 ? { columns, indexes } : { columns };
  }
  return schema;
}

const EXPECTED: Record<string, Schema> = {
  RegionProber: {
    // bursts/burst-outbox.ts
    burst_outbox: {
      columns: ['n INTEGER PK1', 'rows TEXT NOT NULL'],
    },
    // bursts/burst-duty.ts
    burst_runs: {
      columns: ['tick_id INTEGER NOT NULL PK1', 'target TEXT NOT NULL PK2', 'attempts INTEGER NOT NULL DEFAULT 0'],
      indexes: ['pk unique (tick_id, target)'],
    },
    // rollup/rollup-duty.ts
    dirty_days: {
      columns: ['day INTEGER NOT NULL PK1'],
      indexes: ['pk unique (day)'],
    },
    // rollup/rollup-duty.ts
    dirty_hours: {
      columns: ['hour INTEGER NOT NULL PK1'],
      indexes: ['pk unique (hour)'],
    },
    // rollup/rollup-duty.ts
    dirty_spans: {
      columns: ['block INTEGER NOT NULL PK1'],
      indexes: ['pk unique (block)'],
    },
    // prober/evaluation-duty.ts
    evaluations: {
      columns: ['tick_id INTEGER NOT NULL PK1', 'done INTEGER NOT NULL DEFAULT 0'],
      indexes: ['pk unique (tick_id)'],
    },
    // prober/job-queue.ts
    jobs: {
      columns: [
        'tick_id INTEGER NOT NULL PK1',
        'target TEXT NOT NULL PK2',
        'variant TEXT NOT NULL PK3',
        'backfill INTEGER NOT NULL',
        'attempts INTEGER NOT NULL DEFAULT 0',
        'late INTEGER NOT NULL DEFAULT 0',
        'position INTEGER',
      ],
      indexes: ['pk unique (tick_id, target, variant)'],
    },
    // duty/prober-store.ts
    meta: {
      columns: ['key TEXT NOT NULL PK1', 'value TEXT'],
      indexes: ['pk unique (key)'],
    },
    // rollup/otlp-duty.ts
    otlp_pending: {
      columns: ['hour INTEGER NOT NULL PK1'],
      indexes: ['pk unique (hour)'],
    },
    // prober/sample-outbox.ts
    outbox: {
      columns: ['tick_id INTEGER NOT NULL PK1', 'target TEXT NOT NULL PK2', 'variant TEXT NOT NULL PK3', 'sample TEXT NOT NULL'],
      indexes: ['pk unique (tick_id, target, variant)'],
    },
  },
  StatusKeeper: {
    // notify/outbox.ts
    attempts: {
      columns: [
        'seq INTEGER PK1',
        'delivery_id TEXT NOT NULL',
        'channel TEXT NOT NULL',
        'at INTEGER NOT NULL',
        'ok INTEGER NOT NULL',
        'status INTEGER',
        'error TEXT',
      ],
    },
    // notify/outbox.ts
    deliveries: {
      columns: [
        'n INTEGER PK1',
        'id TEXT NOT NULL',
        'incident_id TEXT NOT NULL',
        'channel TEXT NOT NULL',
        'message TEXT NOT NULL',
        'state TEXT NOT NULL',
        'attempts INTEGER NOT NULL',
        'next_at INTEGER NOT NULL',
        'created_at INTEGER NOT NULL',
        'done_at INTEGER',
        'last_error TEXT',
      ],
      indexes: ['u unique (id)'],
    },
    // keeper/status-history.ts
    history: {
      columns: [
        'hour INTEGER NOT NULL PK1',
        'target TEXT NOT NULL PK2',
        'variant TEXT NOT NULL PK3',
        'region TEXT NOT NULL PK4',
        'ticks TEXT NOT NULL',
        'unwritten INTEGER NOT NULL',
        'touched_at INTEGER NOT NULL',
      ],
      indexes: ['pk unique (hour, target, variant, region)'],
    },
    // keeper/status-keeper.ts
    incidents: {
      columns: [
        'id TEXT NOT NULL PK1',
        'target TEXT NOT NULL',
        'variant TEXT NOT NULL',
        'status TEXT NOT NULL',
        'body TEXT NOT NULL',
        'unwritten INTEGER NOT NULL',
        'reminded_at INTEGER NOT NULL',
      ],
      indexes: ['pk unique (id)'],
    },
    // keeper/status-keeper.ts
    maintenance: {
      columns: ['id TEXT NOT NULL PK1', 'body TEXT NOT NULL'],
      indexes: ['pk unique (id)'],
    },
    // keeper/status-keeper.ts
    pairs: {
      columns: ['region TEXT NOT NULL PK1', 'target TEXT NOT NULL PK2', 'variant TEXT NOT NULL PK3', 'state TEXT NOT NULL'],
      indexes: ['pk unique (region, target, variant)'],
    },
    // keeper/status-judge.ts
    stepped: {
      columns: ['target TEXT NOT NULL PK1', 'variant TEXT NOT NULL PK2', 'tick INTEGER NOT NULL'],
      indexes: ['pk unique (target, variant)'],
    },
    // keeper/status-judge.ts
    waiting: {
      columns: ['target TEXT NOT NULL PK1', 'variant TEXT NOT NULL PK2', 'tick INTEGER NOT NULL PK3', 'deadline_at INTEGER NOT NULL'],
      indexes: ['pk unique (target, variant, tick)'],
    },
  },
  ReadBudget: {
    // read-budget.ts
    spent: {
      columns: ['day INTEGER NOT NULL PK1', 'rows INTEGER NOT NULL', 'do_requests INTEGER NOT NULL DEFAULT 0'],
      indexes: ['pk unique (day)'],
    },
  },
  VendorStatusPoller: {
    // vendor/vendor-status-poller.ts
    pending: {
      columns: ['k INTEGER PK1', 'work TEXT NOT NULL'],
    },
  },
  PublicViews: {
    // views/public-views.ts
    state: {
      columns: ['id INTEGER PK1', 'body TEXT NOT NULL'],
    },
  },
  // Keeps nothing in storage (bursts/burst-runner.ts).
  BurstRunner: {},
};

const OBJECTS = [
  ['RegionProber', () => env.REGION_PROBER.getByName('schema-test')],
  ['StatusKeeper', () => env.STATUS_KEEPER.getByName('schema-test')],
  ['ReadBudget', () => env.READ_BUDGET.getByName('schema-test')],
  ['VendorStatusPoller', () => env.VENDOR_STATUS_POLLER.getByName('schema-test')],
  ['PublicViews', () => env.PUBLIC_VIEWS.getByName('schema-test')],
  ['BurstRunner', () => env.BURST_RUNNER.getByName('schema-test')],
] as const;

describe("the Durable Objects' own tables", () => {
  for (const [name, stub] of OBJECTS)
    it(`${name} holds exactly its listed tables, columns and indexes`, async () => {
      const actual = await runInDurableObject(stub() as DurableObjectStub, (_instance: unknown, state: DurableObjectState) =>
        schemaOf(state.storage.sql),
      );
      expect(actual).toEqual(EXPECTED[name]);
    });
});

describe("the objects' duties", () => {
  it('each own their tables: every table of the object is created by exactly one duty (or the meta rows)', () => {
    const owners = [
      ...created(META_TABLES).map((t) => [t, 'meta'] as const),
      ...PROBER_DUTIES.flatMap((d) => created(d.tables).map((t) => [t, d.name] as const)),
    ];
    expect(owners.map(([t]) => t).sort()).toEqual(Object.keys(EXPECTED.RegionProber).sort());
    expect(new Set(PROBER_DUTIES.map((d) => d.name)).size).toBe(PROBER_DUTIES.length);
  });

  it("the status keeper's too: each of its tables is created by exactly one of its duties (or the keeper itself)", async () => {
    const duties = await runInDurableObject(
      env.STATUS_KEEPER.getByName('schema-test'),
      (instance: unknown) => (instance as { duties: KeeperDuty[] }).duties,
    );
    const owners = [...created(KEEPER_TABLES), ...duties.flatMap((d) => created(d.tables))];
    expect(owners.sort()).toEqual(Object.keys(EXPECTED.StatusKeeper).sort());
    expect(duties.map((d) => d.name)).toEqual(['judge', 'incidents', 'history', 'notifications']);
  });
});
