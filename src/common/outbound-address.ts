import dns from 'node:dns/promises';
import net from 'node:net';

/**
 * Where Deskflow's outgoing requests may go (the http_request action, the AI owner's model):
 * not to loopback, private, link-local or metadata addresses, unless DESKFLOW_HTTP_ALLOW names
 * the host or a CIDR that holds the address (docs/contract.md §8).
 */

/** The host's name resolved to nothing. Worth trying again later. */
export class UnresolvedHost extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnresolvedHost';
  }
}

/** The host is (or resolves to) an address outgoing requests may not reach. No retry helps. */
export class AddressRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AddressRefused';
  }
}

/**
 * The address to connect to for `url`: its host resolved, refused (AddressRefused) when any of its
 * addresses is loopback, private, link-local or metadata and neither the host nor a CIDR of
 * `allow` (DESKFLOW_HTTP_ALLOW) lets it through. Callers connect to the address returned, never
 * to a second DNS answer.
 */
export async function allowedAddress(url: URL, allow: string[]): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await dns.lookup(host, { all: true, verbatim: true });
    } catch (err) {
      throw new UnresolvedHost(`Could not resolve ${host}: ${(err as Error).message}`);
    }
  }
  const hostAllowed = allow.some((entry) => entry.toLowerCase() === host.toLowerCase());
  for (const a of addresses) {
    if (!hostAllowed && isRestricted(a.address) && !allow.some((entry) => inCidr(a.address, entry))) {
      throw new AddressRefused(
        `Refused to connect to ${host} (${a.address}): loopback, private, link-local and metadata addresses are blocked; list it in DESKFLOW_HTTP_ALLOW to allow it.`,
      );
    }
  }
  return addresses[0];
}

const RESTRICTED_V4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.168.0.0/16', '198.18.0.0/15', '224.0.0.0/4', '240.0.0.0/4'];
const RESTRICTED_V6 = ['::/128', '::1/128', 'fc00::/7', 'fe80::/10', 'ff00::/8', 'fd00:ec2::254/128'];

export function isRestricted(address: string): boolean {
  const v4 = mappedV4(address);
  if (v4) return RESTRICTED_V4.some((cidr) => inCidr(v4, cidr));
  return RESTRICTED_V6.some((cidr) => inCidr(address, cidr));
}

/**
 * The IPv4 address an address stands for: itself, or the one embedded in an IPv6 address that
 * reaches it, in any spelling (::ffff:127.0.0.1 and ::ffff:7f00:1 alike): IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
function mappedV4(address: string): string | null {
  if (net.isIPv4(address)) return address;
  const bytes = ipv6Bytes(address);
  if (!bytes) return null;
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const v4 = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12);
  if (zero(0, 12)) return v4(12); // ::a.b.c.d (:: and ::1 fall in 0.0.0.0/8 too)
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12)) return v4(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2);
  return null;
}

/** The 16 bytes of an IPv6 address (a zone id is ignored), or null for anything else. */
function ipv6Bytes(address: string): number[] | null {
  const text = address.split('%')[0];
  if (!net.isIPv6(text)) return null;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const head = tail ? text.slice(0, -tail[1].length) : text;
  const v4Groups = tail ? tail[1].split('.').map(Number) : [];
  const parts = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '') : []);
  const [left, right] = head.split('::').map(parts);
  // `::` stands for as many zero groups as the 8 (6 before a dotted IPv4 tail) are missing.
  const zeros = right === undefined ? [] : Array((tail ? 6 : 8) - left.length - right.length).fill('0');
  const groups = [...left, ...zeros, ...(right ?? [])];
  const bytes = groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  return [...bytes, ...v4Groups];
}

/** True when `address` lies in `cidr` (an address alone means /32 or /128). Non-CIDR entries never match. */
export function inCidr(address: string, cidr: string): boolean {
  const [range, bitsText] = cidr.split('/');
  const v4 = mappedV4(address);
  const family = net.isIP(range);
  if (family === 0) return false;
  const list = new net.BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const bits = bitsText === undefined ? (family === 4 ? 32 : 128) : Number(bitsText);
  try {
    list.addSubnet(range, bits, type);
    if (family === 4) return v4 !== null && list.check(v4, 'ipv4');
    return net.isIPv6(address) && list.check(address, 'ipv6');
  } catch {
    return false;
  }
}
