import { Response } from 'undici';
import type { RecordedFile } from './recorder.js';

export interface ParsedBody {
  body: unknown;
  files: RecordedFile[];
}

export class BodyParseError extends Error {}

/**
 * Decodes a request body the way Discord does: JSON, or multipart/form-data carrying
 * `payload_json` plus `files[n]` parts. undici's Web `Response#formData()` implements a
 * spec-compliant multipart parser, so no hand-rolled boundary splitting is needed.
 */
export async function parseBody(contentType: string | undefined, raw: Buffer): Promise<ParsedBody> {
  if (raw.length === 0) return { body: undefined, files: [] };
  const type = (contentType ?? '').toLowerCase();

  if (type.startsWith('multipart/form-data')) {
    let form: FormData;
    try {
      form = await new Response(raw, { headers: { 'content-type': contentType ?? '' } }).formData();
    } catch (error) {
      throw new BodyParseError(`malformed multipart body: ${(error as Error).message}`);
    }
    const files: RecordedFile[] = [];
    let body: unknown;
    const fields: Record<string, string> = {};
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') {
        if (field === 'payload_json') body = parseJson(value);
        else fields[field] = value;
        continue;
      }
      files.push({
        field,
        name: value.name,
        contentType: value.type || 'application/octet-stream',
        bytes: Buffer.from(await value.arrayBuffer()),
      });
    }
    // Without payload_json Discord reads plain form fields as the body.
    if (body === undefined && Object.keys(fields).length > 0) body = fields;
    return { body, files };
  }

  if (type.startsWith('application/json')) {
    return { body: parseJson(raw.toString('utf8')), files: [] };
  }
  throw new BodyParseError(`unsupported content type: ${contentType ?? '(none)'}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BodyParseError('body is not valid JSON');
  }
}
