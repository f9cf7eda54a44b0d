/**
 * Draws Semaforo's traffic-light icons (tray states and the app icon) as PNGs, with no image
 * library: shapes are sampled 4x4 per pixel for smooth edges and written with node:zlib.
 * Run `npm run icons` after changing the drawing; the PNGs in build/icons are committed.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

export const TRAY_STATES = ['idle', 'busy', 'attention', 'paused'] as const;
export type IconState = (typeof TRAY_STATES)[number];
/** Tray sizes per platform convention (16 Windows/macOS, 22 and 24 Linux panels, 32/48 large panels). */
export const TRAY_SIZES = [16, 22, 24, 32, 48] as const;
export const APP_ICON_SIZES = [256, 512] as const;

type RGBA = [number, number, number, number];

const LAMP = { red: [229, 57, 53], amber: [255, 179, 0], green: [67, 160, 71] } as const;
const DIM: RGBA = [85, 85, 85, 255];
const HOUSING: RGBA = [38, 38, 38, 255];
// A light rim so the dark housing stays visible on dark panels.
const RIM: RGBA = [235, 235, 235, 255];

function lit(state: IconState): 'red' | 'amber' | 'green' | null {
  return state === 'attention' ? 'red' : state === 'busy' ? 'amber' : state === 'idle' ? 'green' : null;
}

/** A pixel's colour at (x, y) in a unit square, or null for transparent. */
type Shader = (x: number, y: number) => RGBA | null;

function roundRect(x: number, y: number, x0: number, y0: number, x1: number, y1: number, r: number): boolean {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

function lightShader(state: IconState, template: boolean): Shader {
  const on = lit(state);
  const lamps = [
    { y: 0.22, colour: 'red' as const },
    { y: 0.5, colour: 'amber' as const },
    { y: 0.78, colour: 'green' as const },
  ];
  const black: RGBA = [0, 0, 0, 255];
  return (x, y) => {
    const outer = roundRect(x, y, 0.24, 0.02, 0.76, 0.98, 0.2);
    if (!outer) return null;
    const inner = roundRect(x, y, 0.3, 0.06, 0.7, 0.94, 0.16);
    if (state === 'paused') {
      // Two bars over the middle lamp: the pause sign.
      const bar = (x0: number) => x >= x0 && x <= x0 + 0.09 && y >= 0.38 && y <= 0.62;
      if (bar(0.385) || bar(0.525)) return template ? black : [250, 250, 250, 255];
    }
    for (const l of lamps) {
      const d2 = (x - 0.5) ** 2 + (y - l.y) ** 2;
      if (d2 <= 0.13 ** 2) {
        const isOn = on === l.colour;
        if (template) return isOn || d2 >= 0.09 ** 2 ? black : null;
        return isOn ? [...LAMP[l.colour], 255] : DIM;
      }
    }
    if (template) return inner ? null : black;
    return inner ? HOUSING : RIM;
  };
}

/** Renders `shader` at `size` px with 4x4 supersampling; returns RGBA rows. */
export function render(shader: Shader, size: number): Buffer {
  const out = Buffer.alloc(size * size * 4);
  const S = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const c = shader((px + (sx + 0.5) / S) / size, (py + (sy + 0.5) / S) / size);
          if (!c) continue;
          const w = c[3] / 255;
          r += c[0] * w;
          g += c[1] * w;
          b += c[2] * w;
          a += w;
        }
      }
      const i = (py * size + px) * 4;
      if (a > 0) {
        out[i] = Math.round(r / a);
        out[i + 1] = Math.round(g / a);
        out[i + 2] = Math.round(b / a);
      }
      out[i + 3] = Math.round((a / (S * S)) * 255);
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** Encodes RGBA pixels as a PNG (8-bit, colour type 6, no filtering). */
export function encodePng(rgba: Buffer, size: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Every icon file name with its pixels: tray states at each size and @2x, macOS templates, app icon. */
export function iconFiles(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const state of TRAY_STATES) {
    for (const size of TRAY_SIZES) {
      files.set(`tray-${state}-${size}.png`, encodePng(render(lightShader(state, false), size), size));
      files.set(
        `tray-${state}-${size}@2x.png`,
        encodePng(render(lightShader(state, false), size * 2), size * 2),
      );
    }
    // macOS menu bar: black + alpha, tinted by the system for light and dark menu bars.
    files.set(`tray-${state}-macTemplate.png`, encodePng(render(lightShader(state, true), 16), 16));
    files.set(`tray-${state}-macTemplate@2x.png`, encodePng(render(lightShader(state, true), 32), 32));
  }
  for (const size of APP_ICON_SIZES)
    files.set(`app-${size}.png`, encodePng(render(lightShader('idle', false), size), size));
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'icons');
  fs.mkdirSync(dir, { recursive: true });
  const files = iconFiles();
  for (const [name, png] of files) fs.writeFileSync(path.join(dir, name), png);
  fs.copyFileSync(path.join(dir, 'app-512.png'), path.join(path.dirname(dir), 'icon.png'));
  process.stdout.write(`wrote ${files.size} icons to ${dir}\n`);
}
