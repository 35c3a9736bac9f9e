/**
 * No tick lost, with `npm run dev` killed (SIGKILL, the whole process group) the moment a tick was
 * accepted, then started again on the same state, as a user would after a crash:
 *  - a cron tick, and the tick after it that never came (nothing fires it): both are carried out, the
 *    second by the regions themselves, flagged late;
 *  - a POSTed tick killed right after its 202.
 * Every region × target × variant of each tick is stored exactly once (the samples' unique key would
 * refuse a second), and nothing else.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScript, type ScriptProcess } from '../helpers/script-process.ts';
import { config } from '../../observatory.config.ts';
import { probesPerTick, tickMinutesOf } from '../../shared/config/schedule.ts';
import { cadenceOf } from '../../workers/observatory/prober/tick-heartbeat.ts';

const states: string[] = [];
const perTick = probesPerTick(config);
const cadence = cadenceOf(tickMinutesOf(config.schedule)!);
let dev: ScriptProcess | undefined;

interface Local {
  api: string;
  auth: { authorization: string };
}

/** A new local state (each case starts from none), or the last one again (a restart after the kill). */
function state(fresh: boolean): string {
  if (fresh) states.push(mkdtempSync(join(tmpdir(), 'observatory-kill-')));
  return states.at(-1)!;
}

async function start(fresh: boolean): Promise<Local> {
  dev = runScript('scripts/dev.ts', ['--port', '0', '--reference-port', '0', '--persist-to', state(fresh)]);
  const api = (await dev.until(/observatory API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1\/health/, 180_000))[1];
  await dev.until(/Ctrl-C stops everything/, 10_000);
  return { api, auth: { authorization: `Bearer ${/read token:\s+([0-9a-f]{32})/.exec(dev.output())![1]}` } };
}

/** The processes running on this state (wrangler and its workerd, in a process group of their own). */
function runtimeGroups(dir: string): number[] {
  const groups = new Set<number>();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) continue;
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp ...", comm may hold spaces: read after its closing parenthesis.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      groups.add(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]));
    } catch {
      // ended meanwhile
    }
  }
  return [...groups];
}

/** SIGKILL, at once, to the script's process group and to the runtime's (no handler runs, nothing shuts down). */
async function kill(): Promise<void> {
  const groups = runtimeGroups(states.at(-1)!);
  expect(groups.length).toBeGreaterThan(0);
  for (const g of groups) process.kill(-g, 'SIGKILL');
  await dev!.stop('SIGKILL');
  for (let i = 0; i < 50 && runtimeGroups(states.at(-1)!).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  expect(runtimeGroups(states.at(-1)!)).toEqual([]);
}

interface Row {
  tick_id: number;
  late: boolean;
  backfill: boolean;
  region: string;
  target: string;
  prompt_variant: string;
}

async function samples(local: Local): Promise<Row[]> {
  const r = await fetch(`${local.api}/api/v1/samples?window=1d&limit=1000`, { headers: local.auth });
  expect(r.status).toBe(200);
  return ((await r.json()) as { samples: Row[] }).samples;
}

/** Polls (bounded) until `done` holds of the stored samples; returns them. */
async function until(local: Local, what: string, done: (rows: Row[]) => boolean): Promise<Row[]> {
  let rows: Row[] = [];
  for (let i = 0; i < 240; i++) {
    rows = await samples(local);
    if (done(rows)) return rows;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what}: not within 120 s; stored ticks: ${JSON.stringify(countByTick(rows))}`);
}

const countByTick = (rows: Row[]) =>
  Object.fromEntries(
    [...new Set(rows.map((r) => r.tick_id))].map((t) => [new Date(t).toISOString(), rows.filter((r) => r.tick_id === t).length]),
  );
const keys = (rows: Row[]) => rows.map((r) => `${r.region}|${r.target}|${r.prompt_variant}`).sort();

afterAll(async () => {
  await dev?.stop();
  for (const s of states) rmSync(s, { recursive: true, force: true });
});

describe('a runtime killed right after it accepted a tick', () => {
  it('carries out a cron tick, and runs the tick that never came after it itself, flagged late', async () => {
    let local = await start(true);
    // A cron tick whose successor is already overdue (the grace after its start has passed): nothing will fire it.
    const delivered = Math.floor((Date.now() - cadence.graceMs) / cadence.stepMs) * cadence.stepMs - cadence.stepMs;
    // The runtime's own trigger, which takes the scheduled time (wrangler's /__scheduled fires at now).
    const fired = await fetch(`${local.api}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(config.schedule)}&time=${delivered}`);
    expect(fired.status, await fired.text()).toBe(200);
    await kill();

    local = await start(false);
    // (Should a grid step pass meanwhile, the tick after that is overdue too, and run late as well.)
    const lateTicks = (all: Row[]) => [...new Set(all.filter((r) => r.late).map((r) => r.tick_id))];
    const rows = await until(
      local,
      'the cron tick and the late one',
      (all) =>
        all.filter((r) => r.tick_id === delivered).length >= perTick &&
        lateTicks(all).length > 0 &&
        lateTicks(all).every((t) => all.filter((r) => r.tick_id === t).length >= perTick),
    );
    const onTime = rows.filter((r) => r.tick_id === delivered);
    expect(onTime).toHaveLength(perTick);
    expect(onTime.every((r) => !r.late && !r.backfill)).toBe(true);
    for (const t of lateTicks(rows)) {
      const late = rows.filter((r) => r.tick_id === t);
      expect(t).toBeGreaterThan(delivered);
      expect(late.every((r) => r.late)).toBe(true);
      expect(keys(late)).toEqual(keys(onTime));
    }
    // Nothing else was measured: those ticks, each once.
    expect(rows).toHaveLength((1 + lateTicks(rows).length) * perTick);
    await kill();
  }, 420_000);

  it('carries out a POSTed tick killed right after its 202', async () => {
    let local = await start(true);
    const admin = { authorization: `Bearer ${/admin token:\s+([0-9a-f]{32})/.exec(dev!.output())![1]}` };
    const r = await fetch(`${local.api}/api/v1/ticks`, { method: 'POST', headers: admin, body: '{}' });
    expect(r.status).toBe(202);
    const { tick_id: tick } = (await r.json()) as { tick_id: number };
    await kill();

    local = await start(false);
    const rows = await until(local, 'the POSTed tick', (all) => all.filter((x) => x.tick_id === tick).length >= perTick);
    const ofTick = rows.filter((x) => x.tick_id === tick);
    expect(ofTick).toHaveLength(perTick);
    expect(ofTick.every((x) => !x.late)).toBe(true);
    expect(new Set(keys(ofTick)).size).toBe(perTick);
  }, 420_000);
});
