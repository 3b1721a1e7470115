// Just enough of BOLT11 to preview an invoice before paying it: its
// amount, description and expiry. The server decodes it again and decides;
// this only shows a person what they are about to pay.

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

// decodeBolt11 returns {network, amountMsat (null when the invoice has
// none), description, expiresAt (a Date)} or null when text is not a
// BOLT11 invoice.
export function decodeBolt11(text) {
  let s = String(text || '').trim().toLowerCase();
  if (s.startsWith('lightning:')) s = s.slice(10);
  const sep = s.lastIndexOf('1');
  if (!s.startsWith('ln') || sep < 4 || s.length - sep < 7 + 104 + 6) return null;
  const hrp = s.slice(0, sep);
  const words = [];
  for (const ch of s.slice(sep + 1)) {
    const v = CHARSET.indexOf(ch);
    if (v < 0) return null;
    words.push(v);
  }
  const m = /^ln(bcrt|bc|tbs|tb)([0-9]*)([munp]?)$/.exec(hrp);
  if (!m) return null;
  let amountMsat = null;
  if (m[2]) {
    const n = BigInt(m[2]);
    const per = { '': 100000000000n, m: 100000000n, u: 100000n, n: 100n, p: 1n }[m[3]];
    let msat = n * per;
    if (m[3] === 'p') {
      if (n % 10n !== 0n) return null;
      msat = n / 10n;
    }
    amountMsat = Number(msat);
  }
  const data = words.slice(0, words.length - 6 - 104); // less checksum and signature
  let ts = 0;
  for (let i = 0; i < 7; i++) ts = ts * 32 + data[i];
  let description = null;
  let expiry = 3600;
  for (let i = 7; i + 3 <= data.length;) {
    const type = data[i];
    const len = data[i + 1] * 32 + data[i + 2];
    const body = data.slice(i + 3, i + 3 + len);
    i += 3 + len;
    if (type === 13) description = new TextDecoder().decode(toBytes(body));
    else if (type === 6) expiry = body.reduce((a, w) => a * 32 + w, 0);
  }
  return { network: m[1], amountMsat, description, expiresAt: new Date((ts + expiry) * 1000) };
}

function toBytes(words) {
  const out = [];
  let acc = 0;
  let bits = 0;
  for (const w of words) {
    acc = (acc << 5) | w;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return new Uint8Array(out);
}
