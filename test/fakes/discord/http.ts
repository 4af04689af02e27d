import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from './errors.js';
import type { RecordedFile } from './recorder.js';
import type { Router } from './router.js';

export interface Reply {
  status: number;
  json?: unknown;
  headers?: Record<string, string>;
}

export interface Ctx {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  files: RecordedFile[];
}

export type Handler = (ctx: Ctx) => Reply;
export type RestRouter = Router<Handler>;

export const json = (status: number, body: unknown): Reply => ({ status, json: body });
export const noContent = (): Reply => ({ status: 204 });
export const error = (e: ApiError): Reply => ({
  status: e.status,
  json: { message: e.message, code: e.code, ...(e.errors ? { errors: e.errors } : {}) },
});

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function decodeSegments(path: string): string {
  return path
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/');
}

export function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function send(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.json === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  headers['content-type'] = 'application/json';
  res.writeHead(reply.status, headers);
  res.end(JSON.stringify(reply.json));
}
