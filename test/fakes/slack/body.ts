import type { IncomingMessage } from 'node:http';

/**
 * Arguments Slack accepts as JSON-encoded strings inside form bodies. Only these
 * are decoded: guessing from a leading `[` would turn a message text such as
 * "[1,2]" into an array.
 */
const JSON_ARGUMENTS = new Set(['attachments', 'blocks', 'file_uploads', 'files', 'metadata', 'unfurls', 'user_auth_blocks', 'view']);

export interface FilePart {
  field: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export type ParsedBody =
  | { ok: true; args: Record<string, unknown>; files: FilePart[] }
  | { ok: false; error: 'invalid_json' | 'invalid_form_data' };

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Query-string arguments are merged under body arguments, as the Web API allows both. */
export async function parseArgs(raw: Buffer, contentType: string | undefined, query: URLSearchParams): Promise<ParsedBody> {
  const args: Record<string, unknown> = {};
  for (const [key, value] of query) args[key] = decodeArgument(key, value);
  const type = mediaType(contentType);
  if (raw.length === 0) return { ok: true, args, files: [] };

  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      return { ok: false, error: 'invalid_json' };
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, error: 'invalid_json' };
    return { ok: true, args: { ...args, ...(parsed as Record<string, unknown>) }, files: [] };
  }

  if (type === 'multipart/form-data') {
    let form: FormData;
    try {
      form = await new Response(raw, { headers: { 'content-type': contentType ?? '' } }).formData();
    } catch {
      return { ok: false, error: 'invalid_form_data' };
    }
    const files: FilePart[] = [];
    for (const [field, value] of form) {
      if (typeof value === 'string') {
        args[field] = decodeArgument(field, value);
      } else {
        files.push({ field, filename: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) });
      }
    }
    return { ok: true, args, files };
  }

  for (const [key, value] of new URLSearchParams(raw.toString('utf8'))) args[key] = decodeArgument(key, value);
  return { ok: true, args, files: [] };
}

function decodeArgument(key: string, value: string): unknown {
  if (!JSON_ARGUMENTS.has(key)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
