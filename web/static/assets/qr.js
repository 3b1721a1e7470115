// QR codes, drawn as SVG with DOM calls by the vendored encoder
// (vendor/README.md).
import qrcode from './vendor/qrcode-generator-2.0.4.mjs';

const SVG = 'http://www.w3.org/2000/svg';

// qrSVG returns an SVG element of text as a QR code. A BOLT11 invoice is
// case-insensitive: upper-cased it fits the denser alphanumeric mode, as
// wallets expect. Text already in that mode's characters (an upper-cased
// BIP21 URI of a bech32 address) is encoded in it as it is.
export function qrSVG(text, label) {
  let data = text;
  let mode = 'Byte';
  if (/^(lightning:)?ln[a-z0-9]+$/i.test(text)) {
    data = text.toUpperCase();
    mode = 'Alphanumeric';
  } else if (/^[0-9A-Z $%*+\-./:]+$/.test(text)) {
    mode = 'Alphanumeric';
  }
  const qr = qrcode(0, 'M');
  qr.addData(data, mode);
  qr.make();
  const n = qr.getModuleCount();
  const margin = 4;
  const size = n + margin * 2;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('class', 'qr');
  svg.setAttribute('role', 'img');
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.setAttribute('aria-label', label || 'QR code');
  const bg = document.createElementNS(SVG, 'rect');
  bg.setAttribute('width', String(size));
  bg.setAttribute('height', String(size));
  bg.setAttribute('fill', '#fff');
  svg.append(bg);
  let d = '';
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (qr.isDark(r, c)) d += `M${c + margin} ${r + margin}h1v1h-1z`;
    }
  }
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
  svg.append(path);
  return svg;
}
