import qrcode from 'qrcode-generator';

/**
 * The invitation poster as a PNG, drawn in the browser (docs/promotion.md): the title, the QR code
 * of the invite link and the invite code. Returns a data URL (undefined where canvas is missing).
 */
export function drawPoster(p: { title: string; subtitle: string; codeLabel: string; invite_code: string; link: string }): string | undefined {
  const canvas = document.createElement('canvas');
  const W = 540;
  const H = 860;
  canvas.width = W;
  canvas.height = H;
  const g = canvas.getContext('2d');
  if (!g) return undefined;
  const bg = g.createLinearGradient(0, 0, 0, H);
  bg.addColorStop(0, '#0b1f4d');
  bg.addColorStop(1, '#1f5fd1');
  g.fillStyle = bg;
  g.fillRect(0, 0, W, H);
  g.fillStyle = '#ffffff';
  g.textAlign = 'center';
  g.font = 'bold 40px system-ui, sans-serif';
  g.fillText('Kestrel', W / 2, 90);
  g.font = 'bold 30px system-ui, sans-serif';
  g.fillText(p.title, W / 2, 160, W - 60);
  g.font = '22px system-ui, sans-serif';
  g.fillText(p.subtitle, W / 2, 200, W - 60);

  const qr = qrcode(0, 'M');
  qr.addData(p.link);
  qr.make();
  const n = qr.getModuleCount();
  const box = 320;
  const cell = Math.floor(box / (n + 4));
  const size = cell * (n + 4);
  const x0 = (W - size) / 2;
  const y0 = 250;
  g.fillStyle = '#ffffff';
  g.fillRect(x0, y0, size, size);
  g.fillStyle = '#000000';
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) g.fillRect(x0 + (c + 2) * cell, y0 + (r + 2) * cell, cell, cell);

  g.fillStyle = '#ffffff';
  g.font = '22px system-ui, sans-serif';
  g.fillText(p.codeLabel, W / 2, y0 + size + 60);
  g.font = 'bold 44px ui-monospace, monospace';
  g.fillText(p.invite_code, W / 2, y0 + size + 115);
  g.font = '16px system-ui, sans-serif';
  g.fillText(p.link, W / 2, H - 40, W - 40);
  return canvas.toDataURL('image/png');
}
