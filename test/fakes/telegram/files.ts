import { randomBytes } from 'node:crypto';
import type { Document, File, PhotoSize } from 'grammy/types';
import type { FileArg } from './args.js';
import { badRequest, notModelled, requestEntityTooLarge } from './errors.js';

/**
 * Files the bot uploaded, under the file_id Telegram would give them, downloadable at
 * `/file/bot<token>/<file_path>` after getFile. A photo is answered with the sizes Telegram makes
 * of it (thumbnails up to the original, the largest last), each a file of its own; a document keeps its name. PNG and JPEG are
 * read; bytes that are no image are refused as Telegram refuses them. A photo named by an HTTP URL is kept as that URL
 * without being fetched.
 */

export interface StoredFile {
  fileId: string;
  fileUniqueId: string;
  path: string;
  bytes: Buffer;
}

export interface StoredPhoto {
  sizes: PhotoSize[];
  /** The uploaded bytes; absent for a photo sent by URL. */
  bytes?: Buffer;
  url?: string;
}

/** Telegram's thumbnail ladder: each side that the original exceeds gets a size. */
const LADDER = [90, 320, 800, 1280];
const MAX_SIDE = 2560;

export class FileStore {
  readonly #byId = new Map<string, StoredFile>();
  readonly #photos = new Map<string, StoredPhoto>();

  /** The photo a sendPhoto names: an upload, a file_id sent before, or a URL. */
  photo(arg: FileArg | undefined): StoredPhoto {
    if (!arg) throw badRequest('there is no photo in the request');
    if ('reference' in arg) {
      const known = this.#photos.get(arg.reference);
      if (known) return known;
      if (/^https?:\/\//i.test(arg.reference)) return this.#keep({ sizes: this.#sizes(Buffer.alloc(0), 800, 600), url: arg.reference });
      throw badRequest('wrong file identifier/HTTP URL specified');
    }
    const bytes = arg.upload.bytes;
    const size = imageSize(bytes);
    if (!size && /^(GIF8|RIFF)/.test(bytes.toString('latin1', 0, 4))) throw notModelled('photos other than PNG and JPEG');
    if (!size) throw badRequest('IMAGE_PROCESS_FAILED');
    return this.#keep({ sizes: this.#sizes(bytes, size.width, size.height), bytes });
  }

  /**
   * The document a sendDocument uploads, kept under its name. Bots may upload 50 MB; an empty file
   * is refused, as Telegram refuses it.
   */
  document(arg: FileArg | undefined): Document {
    if (!arg) throw badRequest('there is no document in the request');
    if ('reference' in arg) throw notModelled('documents sent by file_id or URL');
    const { bytes, name } = arg.upload;
    if (bytes.length === 0) throw badRequest('file must be non-empty');
    if (bytes.length > 50 * 1024 * 1024) throw requestEntityTooLarge();
    const file = this.#file(bytes, `documents/file_${this.#byId.size}`);
    return { file_id: file.fileId, file_unique_id: file.fileUniqueId, file_name: name, file_size: bytes.length };
  }

  /** getFile's answer. */
  get(fileId: string | undefined): File {
    const file = fileId ? this.#byId.get(fileId) : undefined;
    if (!file) throw badRequest('invalid file_id');
    return { file_id: file.fileId, file_unique_id: file.fileUniqueId, file_size: file.bytes.length, file_path: file.path };
  }

  byPath(path: string): StoredFile | undefined {
    return [...this.#byId.values()].find((f) => f.path === path);
  }

  bytesOf(fileId: string): Buffer | undefined {
    return this.#byId.get(fileId)?.bytes;
  }

  #keep(photo: StoredPhoto): StoredPhoto {
    for (const size of photo.sizes) this.#photos.set(size.file_id, photo);
    return photo;
  }

  #sizes(bytes: Buffer, width: number, height: number): PhotoSize[] {
    const longest = Math.max(width, height, 1);
    const sides = [...LADDER.filter((side) => side < longest), Math.min(longest, MAX_SIDE)];
    return sides.map((side, i) => {
      const scale = side / longest;
      const file = this.#file(bytes, `photos/file_${this.#byId.size}.${i === sides.length - 1 ? 'png' : 'jpg'}`);
      return {
        file_id: file.fileId,
        file_unique_id: file.fileUniqueId,
        width: Math.max(1, Math.round(width * scale)),
        height: Math.max(1, Math.round(height * scale)),
        file_size: bytes.length,
      };
    });
  }

  #file(bytes: Buffer, path: string): StoredFile {
    const file: StoredFile = {
      fileId: `AgACAgIAAxkDAAI${randomBytes(36).toString('base64url')}`,
      fileUniqueId: `AQAD${randomBytes(9).toString('base64url')}`,
      path,
      bytes,
    };
    this.#byId.set(file.fileId, file);
    return file;
  }
}

/** Width and height from a PNG's or JPEG's header, or null. */
function imageSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('latin1', 12, 16) === 'IHDR') {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    // Walk the JPEG segments to the first start-of-frame, which holds the size.
    let i = 2;
    while (i + 9 < bytes.length && bytes[i] === 0xff) {
      const marker = bytes[i + 1]!;
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: bytes.readUInt16BE(i + 7), height: bytes.readUInt16BE(i + 5) };
      }
      i += 2 + bytes.readUInt16BE(i + 2);
    }
  }
  return null;
}
