import { UpstreamError } from '../errors.js';

/**
 * Slugs are checked against a strict pattern before they touch a URL, and then path-encoded anyway.
 * No dots, slashes, percent signs or query characters can pass, so input like `../health` or `a/b`
 * can never change which route is called.
 */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,127}$/;

export type Service = 'exchanges_data' | 'projects_data';

export function isValidSlug(slug: string): boolean {
  return SLUG_PATTERN.test(slug);
}

export function assertSlug(slug: string, route: string): string {
  if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug)) {
    throw new UpstreamError('invalid_input', route, { detail: 'slug rejected by pattern' });
  }
  return slug;
}

/** `/projects_data/v1/bitcoin/pol/current` from `('projects_data', '/v1/{slug}/pol/current', 'bitcoin')`. */
export function routePath(service: Service, template: string, slug?: string): string {
  const route = `${service} ${template}`;
  if (template.includes('{slug}')) {
    if (slug === undefined) throw new UpstreamError('invalid_input', route, { detail: 'slug missing' });
    return `/${service}${template.replace('{slug}', encodeURIComponent(assertSlug(slug, route)))}`;
  }
  return `/${service}${template}`;
}
