#!/usr/bin/env node
// Plot metrics.jsonl files to a PNG: one panel per metric, one line per run (SVG drawn here,
// rasterised by headless Chromium through playwright-core).
// Usage: node scripts/plot-metrics.mjs --out docs/results/x.png --metrics val/success,train/reward/mean \
//          label1=path/to/metrics.jsonl label2=path/to/other/metrics.jsonl
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args.splice(i, 2)[1] : def;
};
const out = opt('out', 'plot.png');
const metrics = opt('metrics', 'val/success').split(',');
const title = opt('title', '');
const runs = args.map((a) => {
  const [label, file] = a.includes('=') ? a.split('=') : [a, a];
  const rows = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { label, rows };
});
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf'];
const W = 420;
const H = 260;
const pad = { l: 52, r: 12, t: 28, b: 34 };

function panel(metric) {
  const series = runs.map((r) => r.rows.filter((x) => typeof x[metric] === 'number').map((x) => [x.step, x[metric]]));
  const pts = series.flat();
  if (!pts.length) return `<svg width="${W}" height="${H}"><text x="20" y="40">${metric}: no data</text></svg>`;
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs) || 1];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y0 === y1) [y0, y1] = [y0 - 0.5, y1 + 0.5];
  const sx = (x) => pad.l + ((x - x0) / (x1 - x0 || 1)) * (W - pad.l - pad.r);
  const sy = (y) => H - pad.b - ((y - y0) / (y1 - y0)) * (H - pad.t - pad.b);
  const ticks = [0, 0.5, 1].map((f) => y0 + f * (y1 - y0));
  // small ranges (learning rates) need more than two decimals
  const decimals = Math.max(2, Math.ceil(-Math.log10(y1 - y0)) + 1);
  const label = (t) => (decimals > 6 ? t.toExponential(1) : t.toFixed(decimals));
  const lines = series
    .map(
      (s, i) =>
        `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2" points="${s.map(([x, y]) => `${sx(x)},${sy(y)}`).join(' ')}"/>`,
    )
    .join('');
  return `<svg width="${W}" height="${H}" font-family="DejaVu Sans, sans-serif" font-size="11">
    <rect width="${W}" height="${H}" fill="white"/>
    <text x="${pad.l}" y="16" font-size="13" font-weight="bold">${metric}</text>
    <line x1="${pad.l}" y1="${H - pad.b}" x2="${W - pad.r}" y2="${H - pad.b}" stroke="#888"/>
    <line x1="${pad.l}" y1="${pad.t}" x2="${pad.l}" y2="${H - pad.b}" stroke="#888"/>
    ${ticks.map((t) => `<text x="${pad.l - 6}" y="${sy(t) + 4}" text-anchor="end">${label(t)}</text>`).join('')}
    <text x="${pad.l}" y="${H - 10}">step ${x0}</text><text x="${W - pad.r}" y="${H - 10}" text-anchor="end">${x1}</text>
    ${lines}</svg>`;
}

const legend = runs.map((r, i) => `<span style="color:${COLORS[i % COLORS.length]};margin-right:16px">■ ${r.label}</span>`).join('');
const html = `<html><body style="margin:8px;background:white;font-family:DejaVu Sans,sans-serif">
  ${title ? `<h3 style="margin:4px 0">${title}</h3>` : ''}<div style="margin-bottom:6px">${legend}</div>
  <div style="display:flex;flex-wrap:wrap;gap:8px;width:${3 * (W + 8)}px">${metrics.map(panel).join('')}</div></body></html>`;
const exe = [process.env.CHROMIUM_PATH, '/usr/bin/chromium'].find((p) => p && existsSync(p));
if (!exe) {
  writeFileSync(out.replace(/\.png$/, '.html'), html);
  console.log(`no Chromium: wrote ${out.replace(/\.png$/, '.html')} instead`);
} else {
  const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 3 * (W + 8) + 16, height: 200 } });
  await page.setContent(html);
  await page.screenshot({ path: out, fullPage: true });
  await browser.close();
  console.log(`wrote ${out}`);
}
