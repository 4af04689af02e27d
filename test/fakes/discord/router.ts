export interface RouteMatch<H> {
  template: string;
  params: Record<string, string>;
  handler: H;
  auth: boolean;
}

interface Route<H> {
  method: string;
  template: string;
  regex: RegExp;
  keys: string[];
  handler: H;
  auth: boolean;
}

/** Minimal method + path-template router; templates use `:name` segments, paths arrive decoded. */
export class Router<H> {
  readonly #routes: Route<H>[] = [];

  add(method: string, template: string, handler: H, opts: { auth?: boolean } = {}): this {
    const keys: string[] = [];
    const pattern = template
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        keys.push(segment.slice(1));
        return '([^/]+)';
      })
      .join('/');
    this.#routes.push({ method, template, regex: new RegExp(`^${pattern}$`), keys, handler, auth: opts.auth ?? true });
    return this;
  }

  hasTemplate(template: string): boolean {
    return this.#routes.some((r) => r.template === template);
  }

  /** Returns the route for the path and whether any route exists for it under another method. */
  match(method: string, path: string): { found: RouteMatch<H> | null; templateForAnyMethod: string | null } {
    let templateForAnyMethod: string | null = null;
    for (const route of this.#routes) {
      const m = route.regex.exec(path);
      if (!m) continue;
      templateForAnyMethod ??= route.template;
      if (route.method !== method) continue;
      const params = Object.fromEntries(route.keys.map((k, i) => [k, m[i + 1] ?? '']));
      return { found: { template: route.template, params, handler: route.handler, auth: route.auth }, templateForAnyMethod };
    }
    return { found: null, templateForAnyMethod };
  }
}
