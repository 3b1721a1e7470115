// Lightning Addresses in the browser: the LNURL a wallet scans for one
// (LUD-01 bech32 of its LUD-16 URL) and Nostr public keys typed as npub.

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values) {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GEN[i];
  }
  return chk >>> 0;
}

function hrpExpand(hrp) {
  const out = [];
  for (const c of hrp) out.push(c.charCodeAt(0) >> 5);
  out.push(0);
  for (const c of hrp) out.push(c.charCodeAt(0) & 31);
  return out;
}

// convert regroups bits (8 → 5 with padding, 5 → 8 without); null when
// the input does not fit.
function convert(data, from, to, pad) {
  let acc = 0;
  let bits = 0;
  const out = [];
  const max = (1 << to) - 1;
  for (const v of data) {
    acc = (acc << from) | v;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & max);
    }
    acc &= (1 << bits) - 1;
  }
  if (pad) {
    if (bits) out.push((acc << (to - bits)) & max);
  } else if (bits >= from || ((acc << (to - bits)) & max)) {
    return null;
  }
  return out;
}

// bech32Encode encodes bytes under hrp (bech32, not bech32m; no length
// limit: LNURLs are longer than 90 characters).
export function bech32Encode(hrp, bytes) {
  const words = convert(bytes, 8, 5, true);
  const mod = polymod([...hrpExpand(hrp), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  let s = `${hrp}1`;
  for (const w of words) s += CHARSET[w];
  for (let i = 0; i < 6; i++) s += CHARSET[(mod >>> (5 * (5 - i))) & 31];
  return s;
}

// bech32Decode returns {hrp, bytes} or null when s is no valid bech32.
export function bech32Decode(text) {
  const s = String(text || '').trim();
  if (s !== s.toLowerCase() && s !== s.toUpperCase()) return null;
  const low = s.toLowerCase();
  const sep = low.lastIndexOf('1');
  if (sep < 1 || low.length - sep < 7) return null;
  const hrp = low.slice(0, sep);
  const words = [];
  for (const ch of low.slice(sep + 1)) {
    const v = CHARSET.indexOf(ch);
    if (v < 0) return null;
    words.push(v);
  }
  if (polymod([...hrpExpand(hrp), ...words]) !== 1) return null;
  const bytes = convert(words.slice(0, -6), 5, 8, false);
  return bytes ? { hrp, bytes: new Uint8Array(bytes) } : null;
}

// addressURL is the URL a wallet asks for the payRequest of a Lightning
// Address (LUD-16): https on the address's domain, http for an onion.
export function addressURL(address) {
  const at = address.lastIndexOf('@');
  const user = address.slice(0, at);
  const domain = address.slice(at + 1);
  const scheme = /\.onion(:\d+)?$/i.test(domain) ? 'http' : 'https';
  return `${scheme}://${domain}/.well-known/lnurlp/${user}`;
}

// addressQR is what the QR code of a Lightning Address carries: the
// LIGHTNING: URI of the LUD-01 LNURL of its LUD-16 URL, upper case (the
// QR code's alphanumeric mode). Every LNURL wallet scans that; not all
// take a bare user@domain from a camera.
export function addressQR(address) {
  const lnurl = bech32Encode('lnurl', new TextEncoder().encode(addressURL(address)));
  return `LIGHTNING:${lnurl.toUpperCase()}`;
}

// nostrPubkeyHex reads a Nostr public key typed as npub1… or as 64 hex
// digits: the hex the API takes, or null.
export function nostrPubkeyHex(text) {
  const s = String(text || '').trim();
  if (/^[0-9a-fA-F]{64}$/.test(s)) return s.toLowerCase();
  const d = bech32Decode(s);
  if (!d || d.hrp !== 'npub' || d.bytes.length !== 32) return null;
  return [...d.bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

// npubOf is the npub1… of a hex public key.
export function npubOf(hex) {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bech32Encode('npub', bytes);
}

// identifierOf reads the address of a payRequest's metadata
// (text/identifier, LUD-16), or ''.
export function identifierOf(payRequest) {
  try {
    const meta = JSON.parse(payRequest.metadata);
    const id = meta.find((m) => Array.isArray(m) && m[0] === 'text/identifier');
    return id ? String(id[1]) : '';
  } catch {
    return '';
  }
}
