import { promisify } from 'node:util';
import { crc32, deflate } from 'node:zlib';

const deflateAsync = promisify(deflate);

/**
 * PNG from the canvas's RGBA pixels. Skia's own encoder (zlib level 6 with adaptive row filters)
 * took ~60 ms for a 1600x800 chart, several times the drawing itself. Charts are mostly flat
 * colour, so unfiltered rows at zlib level 1 compress to about the same size in a few
 * milliseconds, and whole rows are copied natively rather than pixel by pixel in JavaScript.
 * The compression runs on libuv's thread pool, so the event loop keeps answering meanwhile.
 */
export async function encodePng(rgba: Uint8Array, width: number, height: number): Promise<Buffer> {
  const rowBytes = width * 4;
  if (rgba.length < rowBytes * height) throw new Error(`pixel buffer too small for ${width}x${height}`);
  const src = Buffer.from(rgba.buffer, rgba.byteOffset, rowBytes * height);
  const stride = rowBytes + 1;
  const raw = scratch.take(stride * height);
  let idat: Buffer;
  try {
    for (let y = 0; y < height; y++) {
      raw[y * stride] = 0; // row filter: none
      src.copy(raw, y * stride + 1, y * rowBytes, (y + 1) * rowBytes);
    }
    idat = await deflateAsync(raw, { level: 1 });
  } finally {
    scratch.give(raw);
  }

  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type: RGBA (the pixels' own layout, so no per-pixel repacking)
  ihdr[10] = 0; // compression: deflate
  ihdr[11] = 0; // filter method
  ihdr[12] = 0; // no interlace
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * The filtered rows live only until their compression is done, so a few buffers serve every chart.
 * A fresh 5 MB buffer per chart cost a millisecond of page faults, and the allocator kept the
 * freed ones in its heap: tens of megabytes of resident memory after a burst of charts.
 */
const scratch = {
  free: [] as Buffer[],
  take(bytes: number): Buffer {
    const i = this.free.findIndex((b) => b.length >= bytes);
    const buffer = i === -1 ? Buffer.allocUnsafeSlow(bytes) : this.free.splice(i, 1)[0]!;
    return buffer.subarray(0, bytes);
  },
  give(view: Buffer): void {
    // Kept: as many as charts compress at once (the caller bounds that), and only full-size ones.
    const whole = Buffer.from(view.buffer, 0, view.buffer.byteLength);
    if (this.free.length < 4) this.free.push(whole);
  },
};

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, tail]);
}

/** Width and height from a PNG's IHDR, or null if the bytes are not a PNG. */
export function pngSize(png: Buffer): { width: number; height: number } | null {
  if (png.length < 24 || !png.subarray(0, 8).equals(SIGNATURE) || png.toString('ascii', 12, 16) !== 'IHDR') return null;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
