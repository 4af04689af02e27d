import { createIdSequence } from './identity.js';

export interface UploadRecord {
  file_id: string;
  filename: string;
  bytes: Buffer;
  contentType: string;
}

/** A file as the fake holds it: who uploaded it, whether the upload was completed, where it was shared. */
export interface FakeFile {
  id: string;
  /** The workspace of the token that asked for the upload URL. */
  team: string;
  filename: string;
  /** Set by files.completeUploadExternal; until then the file cannot be shared nor shown. */
  completedAt?: number;
  /** Channels it was shared into (files.completeUploadExternal with channel_id): each got a file message. */
  channels: string[];
}

interface IssuedFile extends FakeFile {
  declaredLength: number;
  bytes?: Buffer;
  contentType?: string;
  created: number;
  /** When Slack has finished processing it: a message can show it from then on. */
  readyAt?: number;
}

/** The image types Slack shows in an image block's `slack_file`. */
const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif']);

/**
 * State behind the three-step external upload: an id and URL are issued, bytes arrive at that
 * URL, and completion makes them a file, shared into a channel only when completion names one.
 */
export class FileStore {
  private readonly issued = new Map<string, IssuedFile>();
  private readonly received: UploadRecord[] = [];
  private readonly nextId = createIdSequence('F');
  /** How long Slack takes to process a completed file before a message may show it. */
  processingMs = 0;

  issue(filename: string, declaredLength: number, team: string): IssuedFile {
    const file: IssuedFile = { id: this.nextId(), team, filename, declaredLength, created: Math.floor(Date.now() / 1000), channels: [] };
    this.issued.set(file.id, file);
    return file;
  }

  /** Returns false for ids the fake never issued, which real Slack rejects too. */
  receive(fileId: string, bytes: Buffer, contentType: string): boolean {
    const file = this.issued.get(fileId);
    if (!file) return false;
    file.bytes = bytes;
    file.contentType = contentType;
    this.received.push({ file_id: fileId, filename: file.filename, bytes, contentType });
    return true;
  }

  /**
   * Files that have bytes and belong to the caller's workspace; an id whose upload never happened,
   * or that another workspace uploaded, counts as missing.
   */
  uploaded(fileId: string, team: string): (IssuedFile & { bytes: Buffer }) | undefined {
    const file = this.issued.get(fileId);
    return file?.bytes && file.team === team ? (file as IssuedFile & { bytes: Buffer }) : undefined;
  }

  complete(file: IssuedFile, now: number): void {
    file.completedAt ??= now;
    file.readyAt ??= now + this.processingMs;
  }

  share(file: IssuedFile, channel: string): void {
    if (!file.channels.includes(channel)) file.channels.push(channel);
  }

  /**
   * Why a message posted by `team` cannot show this file in an image block (`slack_file` by id or
   * by its URL), or undefined when it can: it must exist in that workspace, be completed and
   * processed, and be an image.
   */
  unusable(ref: { id?: unknown; url?: unknown }, team: string, now: number): string | undefined {
    const file =
      typeof ref.id === 'string'
        ? this.issued.get(ref.id)
        : typeof ref.url === 'string'
          ? [...this.issued.values()].find((f) => [`-${f.id}/`, `/${f.id}/`].some((part) => String(ref.url).includes(part)))
          : undefined;
    if (!file || file.team !== team) return 'no such file in this workspace';
    if (file.completedAt === undefined) return 'upload not completed';
    if (file.readyAt !== undefined && now < file.readyAt) return 'file still processing';
    const extension = file.filename.includes('.') ? (file.filename.split('.').pop() ?? '').toLowerCase() : '';
    return IMAGE_EXTENSIONS.has(extension) ? undefined : 'not an image';
  }

  /** Every file issued, as it stands. */
  files(): FakeFile[] {
    return [...this.issued.values()].map(({ id, team, filename, completedAt, channels }) => ({
      id,
      team,
      filename,
      ...(completedAt !== undefined ? { completedAt } : {}),
      channels: [...channels],
    }));
  }

  uploads(): UploadRecord[] {
    return [...this.received];
  }

  /** Forgets what the recorder shows, not the issued ids: an upload in flight must still complete. */
  clearRecords(): void {
    this.received.length = 0;
  }
}
