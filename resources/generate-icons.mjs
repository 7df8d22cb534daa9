#!/usr/bin/env node
// Draws Threadline's icon (a chat bubble carrying one continuous thread) with signed distance
// fields, anti-aliased, and writes PNGs with node:zlib only. Run: node resources/generate-icons.mjs
import { deflateSync } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

// ─── geometry in unit space (0..1), y down ─────────────────────────────────────────────────
const clamp01 = (v) => Math.min(1, Math.max(0, v));
const mix = (a, b, t) => a + (b - a) * t;

function roundedRect(px, py, cx, cy, hw, hh, r) {
  const qx = Math.abs(px - cx) - hw + r;
  const qy = Math.abs(py - cy) - hh + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

function segment(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = clamp01(((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

function polygon(px, py, pts) {
  let d = Infinity;
  let inside = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const [ax, ay] = pts[j];
    const [bx, by] = pts[i];
    d = Math.min(d, segment(px, py, ax, ay, bx, by));
    if (ay > py !== by > py && px < ((bx - ax) * (py - ay)) / (by - ay) + ax) inside = !inside;
  }
  return inside ? -d : d;
}

// The thread: one sine period and a half across the bubble, ending in a knot.
const THREAD = [];
for (let i = 0; i <= 160; i++) {
  const t = i / 160;
  const x = mix(0.32, 0.655, t);
  THREAD.push([x, 0.455 - 0.055 * Math.sin(t * Math.PI * 3) * (1 - 0.25 * t)]);
}
const KNOT = THREAD[THREAD.length - 1];
const TAIL = [
  [0.31, 0.6],
  [0.29, 0.755],
  [0.46, 0.62],
];

function threadDistance(px, py) {
  // Far from the thread's box the exact distance does not matter (and is slow to compute).
  if (px < 0.24 || px > 0.72 || py < 0.34 || py > 0.58) return 1;
  let d = Infinity;
  for (let i = 1; i < THREAD.length; i++) d = Math.min(d, segment(px, py, ...THREAD[i - 1], ...THREAD[i]));
  return d;
}

// ─── colours ───────────────────────────────────────────────────────────────────────────────
const INDIGO = [79, 70, 229];
const VIOLET = [124, 58, 237];
const TEAL = [13, 148, 136];

function background(x, y) {
  // Diagonal gradient indigo → violet → teal, lighter at the top for depth.
  const t = clamp01((x * 0.55 + y * 0.45 - 0.05) / 0.95);
  const c =
    t < 0.5 ? INDIGO.map((v, i) => mix(v, VIOLET[i], t * 2)) : VIOLET.map((v, i) => mix(v, TEAL[i], (t - 0.5) * 2));
  const light = 1 + 0.12 * (1 - y);
  return c.map((v) => Math.min(255, v * light));
}

function threadColor(x) {
  const t = clamp01((x - 0.3) / 0.4);
  return INDIGO.map((v, i) => mix(v, TEAL[i], t));
}

// ─── raster ────────────────────────────────────────────────────────────────────────────────
function render(size) {
  const px = 1 / size;
  const cover = (d) => clamp01(0.5 - d / px);
  const out = Buffer.alloc(size * size * 4);
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const x = (i + 0.5) / size;
      const y = (j + 0.5) / size;
      // Tile with a small margin, as desktop icon grids expect.
      const tile = cover(roundedRect(x, y, 0.5, 0.5, 0.44, 0.44, 0.2));
      let rgb = background(x, y);
      // Soft shadow under the bubble.
      const shadowD = Math.min(roundedRect(x, y - 0.018, 0.5, 0.445, 0.27, 0.2, 0.11), polygon(x, y - 0.018, TAIL));
      const shadow = 0.22 * clamp01(1 - Math.max(0, shadowD) / 0.035);
      rgb = rgb.map((v) => v * (1 - shadow));
      const bubbleD = Math.min(roundedRect(x, y, 0.5, 0.445, 0.27, 0.2, 0.11), polygon(x, y, TAIL) - 0.012);
      const bubble = cover(bubbleD);
      rgb = rgb.map((v) => mix(v, 255, bubble));
      const strokeD = Math.min(threadDistance(x, y) - 0.024, Math.hypot(x - KNOT[0], y - KNOT[1]) - 0.042);
      const thread = cover(strokeD) * bubble;
      const tc = threadColor(x);
      rgb = rgb.map((v, k) => mix(v, tc[k], thread));
      const o = (j * size + i) * 4;
      out[o] = Math.round(rgb[0]);
      out[o + 1] = Math.round(rgb[1]);
      out[o + 2] = Math.round(rgb[2]);
      out[o + 3] = Math.round(255 * tile);
    }
  }
  return out;
}

// ─── PNG encoding ──────────────────────────────────────────────────────────────────────────
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function encodePng(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const targets = [
  ['icon.png', 512],
  ['icons/512x512.png', 512],
  ['icons/256x256.png', 256],
];
for (const [name, size] of targets) {
  const file = join(here, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, encodePng(size, render(size)));
  console.log(`wrote ${name} (${size}×${size})`);
}
