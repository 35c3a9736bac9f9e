/**
 * The key a client's requests are counted under: an IPv4 address as it is, an IPv6 address by its /64 (one
 * subscriber's network: a client that holds a /64 can pick any of its 2^64 addresses, so counting each address
 * alone would let it rotate past any per-address limit). An IPv4-mapped IPv6 address (::ffff:192.0.2.1) counts as
 * its IPv4 address. Anything else (not an address at all) is counted as its own key, cut to MAX_KEY_CHARS.
 */

/** Hextets an IPv6 address has, and how many of them name its /64. */
const HEXTETS = 8;
const PREFIX_HEXTETS = 4;
/** The longest key kept for a value that is no address (cf-connecting-ip is Cloudflare's, so this is only a guard). */
export const MAX_KEY_CHARS = 64;

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEXTET = /^[0-9a-f]{1,4}$/;

function ipv4(text: string): string | null {
  const m = IPV4.exec(text);
  if (!m || m.slice(1).some((part) => Number(part) > 255)) return null;
  return m.slice(1).map(Number).join('.');
}

/** The eight hextets of an IPv6 address, or null when it is none (a trailing dotted IPv4 part stands for the last two). */
function hextets(text: string): number[] | null {
  let s = text.toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.', lastColon)) {
    const v4 = ipv4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    const [a, b, c, d] = v4.split('.').map(Number);
    s = `${s.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const h of part.split(':')) {
      if (!HEXTET.test(h)) return null;
      out.push(Number.parseInt(h, 16));
    }
    return out;
  };
  const head = parse(halves[0]);
  const rest = halves.length === 2 ? parse(halves[1]) : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length;
  if (halves.length === 2 ? given >= HEXTETS : given !== HEXTETS) return null;
  return [...head, ...Array<number>(HEXTETS - given).fill(0), ...rest];
}

export function clientKey(address: string): string {
  const text = address.trim();
  const v4 = ipv4(text);
  if (v4 !== null) return v4;
  const h = text.includes(':') ? hextets(text) : null;
  if (h === null) return text.slice(0, MAX_KEY_CHARS);
  // ::ffff:a.b.c.d, an IPv4 client seen through an IPv6 socket.
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) return [h[6] >> 8, h[6] & 255, h[7] >> 8, h[7] & 255].join('.');
  return `${h
    .slice(0, PREFIX_HEXTETS)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}
