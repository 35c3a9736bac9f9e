/**
 * Durable Object namespaces that count the requests made through them: every call of a method on a stub they
 * hand out is one Durable Object request (what Cloudflare bills, and what the plan's daily quota counts). The
 * read API wraps each request's namespaces in one, so the anonymous readers' budget counts what they cost in
 * Durable Object requests as well as in D1 rows (api/public-reads.ts).
 */
export const DO_BINDINGS = ['REGION_PROBER', 'STATUS_KEEPER', 'BURST_RUNNER', 'PUBLIC_VIEWS', 'VENDOR_STATUS_POLLER'] as const;

export interface DoMeter {
  /** The namespaces to use instead of env's, each counting into `requests`. */
  bindings: Partial<Env>;
  requests: number;
}

export function meterDurableObjects(env: Env): DoMeter {
  const meter: DoMeter = { bindings: {}, requests: 0 };
  const given = env as unknown as Record<string, DurableObjectNamespace | undefined>;
  const bindings = meter.bindings as Record<string, DurableObjectNamespace>;
  const stub = (inner: object): object =>
    new Proxy(inner, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (typeof value !== 'function' || typeof prop === 'symbol') return value;
        return (...args: unknown[]) => {
          meter.requests++;
          return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
        };
      },
    });
  for (const name of DO_BINDINGS) {
    const ns = given[name];
    if (!ns) continue;
    bindings[name] = new Proxy(ns, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (prop === 'get' || prop === 'getByName')
          return (...args: unknown[]) => stub(Reflect.apply(value as (...a: unknown[]) => object, target, args));
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
  return meter;
}
