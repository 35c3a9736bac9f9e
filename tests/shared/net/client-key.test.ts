import { describe, expect, it } from 'vitest';
import { clientKey, MAX_KEY_CHARS } from '../../../shared/net/client-key.ts';

describe('clientKey', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    [' 203.0.113.9 ', '203.0.113.9'],
    // Every address of one /64 counts as one client.
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:0:0:1', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    // An IPv4 client seen through an IPv6 socket is that IPv4 client.
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['::ffff:cb00:7109', '203.0.113.9'],
    ['64:ff9b::203.0.113.9', '64:ff9b:0:0::/64'],
  ])('%s → %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });

  it('keeps two /64s apart', () => {
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
  });

  it.each(['999.1.1.1', '1:2:3:4:5:6:7:8:9', '1::2::3', 'g::1', '12345::1', 'not an address'])('%s is no address: its own key', (text) => {
    expect(clientKey(text)).toBe(text);
  });

  it('cuts a long value', () => {
    expect(clientKey('x'.repeat(1_000))).toHaveLength(MAX_KEY_CHARS);
  });
});
