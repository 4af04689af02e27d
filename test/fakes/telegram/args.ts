import { Response } from 'undici';
import { badRequest } from './errors.js';

/** A file part of a multipart request. */
export interface UploadedFile {
  /** The form field that carried it (grammY names it at random and refers to it as `attach://<field>`). */
  field: string;
  name: string;
  bytes: Buffer;
}

/** A file parameter as the Bot API reads it: an upload, or a string (a file_id or an HTTP URL). */
export type FileArg = { upload: UploadedFile } | { reference: string };

/**
 * A method's parameters, however they came: the query string, a JSON body, a urlencoded form or
 * a multipart form. The Bot API reads every parameter as text and decodes JSON-typed ones
 * (reply_markup, entities, scope…) itself, so a JSON body's object and a form's JSON string mean
 * the same; this class reads both the same way.
 */
export class Args {
  constructor(
    readonly values: Record<string, unknown>,
    readonly files: UploadedFile[] = [],
  ) {}

  has(name: string): boolean {
    const value = this.values[name];
    return value !== undefined && value !== null && value !== '';
  }

  string(name: string): string | undefined {
    const value = this.values[name];
    if (value === undefined || value === null) return undefined;
    return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }

  /** An integer as the server reads one: a number, or digits in a string; anything else is absent. */
  int(name: string): number | undefined {
    const text = this.string(name)?.trim();
    if (!text || !/^-?\d+$/.test(text)) return undefined;
    return Number(text);
  }

  bool(name: string): boolean {
    const value = this.values[name];
    return value === true || value === 'true' || value === '1' || value === 1;
  }

  /** A JSON-typed parameter; `unparsable` is the server's refusal for text that is not JSON. */
  json(name: string, unparsable: string): unknown {
    return decodeJson(this.values[name], unparsable);
  }

  file(name: string): FileArg | undefined {
    const direct = this.files.find((f) => f.field === name);
    if (direct) return { upload: direct };
    const text = this.string(name);
    if (!text) return undefined;
    const attached = /^attach:\/\/(.+)$/.exec(text)?.[1];
    if (attached !== undefined) {
      const upload = this.files.find((f) => f.field === attached);
      if (!upload) throw badRequest(`can't find attached file "${attached}"`);
      return { upload };
    }
    return { reference: text };
  }
}

/** A JSON-typed value: as given when a JSON body carried it, parsed when a form carried it as text; absent when empty. */
export function decodeJson(value: unknown, unparsable: string): unknown {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw badRequest(unparsable);
  }
}

/** Reads the parameters of one request; `null` when the body cannot be read as what it says it is. */
export async function readArgs(contentType: string | undefined, raw: Buffer, query: URLSearchParams): Promise<Args | null> {
  const values: Record<string, unknown> = Object.fromEntries(query);
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (raw.length === 0) return new Args(values);
  if (type === 'application/json') {
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return null;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    return new Args({ ...values, ...body });
  }
  if (type === 'application/x-www-form-urlencoded') {
    return new Args({ ...values, ...Object.fromEntries(new URLSearchParams(raw.toString('utf8'))) });
  }
  if (type === 'multipart/form-data') {
    let form: FormData;
    try {
      // undici's parser takes grammY's terse part headers (`content-disposition:form-data;name=…`).
      form = (await new Response(raw, { headers: { 'content-type': contentType ?? '' } }).formData()) as FormData;
    } catch {
      return null;
    }
    const files: UploadedFile[] = [];
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') values[field] = value;
      else files.push({ field, name: value.name, bytes: Buffer.from(await value.arrayBuffer()) });
    }
    return new Args(values, files);
  }
  return new Args(values);
}
