import * as fmt from '../../src/reply/format.js';
import type { Footer, Reply, Section } from '../../src/reply/model.js';
import { slackText } from '../helpers/core.js';

/**
 * A deliberately plain Reply → text rendering for the test deliverers (the real Slack and Discord
 * adapters render Block Kit and embeds). Tables go in a code block so columns line up.
 */
export function renderText(reply: Reply): string {
  const out: string[] = [];
  switch (reply.kind) {
    case 'table': {
      out.push(`*${reply.title}*`);
      if (reply.note) out.push(slackText(reply.note));
      const widths = reply.columns.map((c) => Math.max(c.label.length, ...reply.rows.map((r) => (r[c.key] ?? '').length)));
      const line = (cells: string[]) =>
        cells
          .map((t, i) => (reply.columns[i]!.align === 'right' ? t.padStart(widths[i]!) : t.padEnd(widths[i]!)))
          .join('  ')
          .trimEnd();
      out.push('```', line(reply.columns.map((c) => c.label)), ...reply.rows.map((r) => line(reply.columns.map((c) => r[c.key] ?? ''))), '```');
      for (const s of reply.sections ?? []) out.push(...section(s));
      out.push(...footer(reply.footer));
      break;
    }
    case 'text':
      if (reply.title) out.push(`*${reply.title}*`);
      if (reply.text) out.push(slackText(reply.text));
      for (const s of reply.sections ?? []) out.push(...section(s));
      out.push(...footer(reply.footer));
      break;
    case 'card':
      out.push(`*${reply.title}*`, `${reply.headline.label}: ${reply.headline.value}`);
      for (const s of reply.sections) out.push(...section(s));
      out.push(...footer(reply.footer));
      break;
    case 'choice':
      out.push(slackText(reply.prompt), ...reply.options.map((o) => `• ${o.label}`));
      break;
    case 'error':
      out.push(reply.message, ...(reply.hint ? [slackText(reply.hint)] : []));
      break;
  }
  return out.join('\n');
}

function section(s: Section): string[] {
  const lines = [`*${s.title}*${s.direction ? ` (${s.direction})` : ''}`];
  for (const f of s.fields ?? []) lines.push(`${f.label}: ${f.value}${f.detail ? ` (${f.detail})` : ''}`);
  if (s.items) lines.push(...(s.items.length ? s.items.map((i) => `• ${i}`) : [`_${s.empty ?? 'none'}_`]));
  return lines;
}

function footer(f: Footer | undefined): string[] {
  if (!f) return [];
  const parts = [`as of ${fmt.utc(f.asOf)}`, `source ${f.sources.map((s) => s.toUpperCase()).join('+') || '—'}`];
  if (f.stale) parts.push(`STALE: data from ${fmt.age(f.stale.ageMs)} ago`);
  if (f.simulated) parts.push('SIMULATED DATA');
  return [parts.join(' · '), ...(f.notes ?? [])];
}
