import { createIdSequence } from './identity.js';

export interface UploadRecord {
  file_id: string;
  filename: string;
  bytes: Buffer;
  contentType: string;
}

interface IssuedFile {
  id: string;
  filename: string;
  declaredLength: number;
  bytes?: Buffer;
  contentType?: string;
  created: number;
}

/**
 * State behind the three-step external upload: an id and URL are issued, bytes
 * arrive at that URL, and completion turns them into a shared file.
 */
export class FileStore {
  private readonly issued = new Map<string, IssuedFile>();
  private readonly received: UploadRecord[] = [];
  private readonly nextId = createIdSequence('F');

  issue(filename: string, declaredLength: number): IssuedFile {
    const file: IssuedFile = { id: this.nextId(), filename, declaredLength, created: Math.floor(Date.now() / 1000) };
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

  /** Files that have bytes; an id whose upload never happened counts as missing. */
  uploaded(fileId: string): (IssuedFile & { bytes: Buffer }) | undefined {
    const file = this.issued.get(fileId);
    return file?.bytes ? (file as IssuedFile & { bytes: Buffer }) : undefined;
  }

  uploads(): UploadRecord[] {
    return [...this.received];
  }

  /** Forgets what the recorder shows, not the issued ids: an upload in flight must still complete. */
  clearRecords(): void {
    this.received.length = 0;
  }
}
