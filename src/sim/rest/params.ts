import { invalid } from './errors.js';

/** Strict query-parameter readers: anything malformed is a 400 naming the parameter, never a silent default. */
export class Query {
  constructor(private readonly search: URLSearchParams) {}

  private raw(name: string): string | undefined {
    const v = this.search.get(name);
    return v === null ? undefined : v;
  }

  int(name: string, opts: { required?: boolean; min?: number; max?: number; fallback?: number } = {}): number | undefined {
    const v = this.raw(name);
    if (v === undefined || v === '') {
      if (opts.required) throw invalid(name, `'${name}' is required`);
      return opts.fallback;
    }
    if (!/^-?\d+$/.test(v)) throw invalid(name, `'${name}' must be an integer`);
    const n = Number(v);
    const { min, max } = opts;
    if ((min !== undefined && n < min) || (max !== undefined && n > max) || !Number.isSafeInteger(n)) {
      const bounds =
        min !== undefined && max !== undefined ? `between ${min} and ${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`;
      throw invalid(name, `'${name}' must be an integer ${bounds}`);
    }
    return n;
  }

  requiredInt(name: string): number {
    return this.int(name, { required: true, min: 0 })!;
  }

  /** `days` on chart routes: 1..365, omitted means the whole history. */
  days(): number | undefined {
    return this.int('days', { min: 1, max: 365 });
  }

  page(): { page: number; pageSize: number } {
    return {
      page: this.int('page', { min: 1, fallback: 1 })!,
      pageSize: this.int('page_size', { min: 1, max: 50, fallback: 20 })!,
    };
  }

  string(name: string, required = false): string | undefined {
    const v = this.raw(name)?.trim();
    if (!v) {
      if (required) throw invalid(name, `'${name}' is required`);
      return undefined;
    }
    return v;
  }

  enumOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const v = this.raw(name);
    if (v === undefined || v === '') return fallback;
    if (!(values as readonly string[]).includes(v)) throw invalid(name, `'${name}' must be one of ${values.join(', ')}`);
    return v as T;
  }

  bool(name: string): boolean | undefined {
    const v = this.raw(name);
    if (v === undefined || v === '') return undefined;
    if (v !== 'true' && v !== 'false') throw invalid(name, `'${name}' must be true or false`);
    return v === 'true';
  }

  /** Arrays arrive as repeated keys (`a=1&a=2`, also `a[]=1`) or comma-separated (`a=1,2`): both are accepted. */
  array(name: string): string[] | undefined {
    const values = [...this.search.getAll(name), ...this.search.getAll(`${name}[]`)]
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter(Boolean);
    return values.length ? values : undefined;
  }

  intArray(name: string): number[] | undefined {
    const values = this.array(name);
    if (!values) return undefined;
    if (!values.every((v) => /^\d+$/.test(v))) throw invalid(name, `'${name}' must be a list of integer ids`);
    return values.map(Number);
  }

  /** `from` and `to` on history routes: both required, integers, from <= to. */
  range(): { from: number; to: number } {
    const from = this.requiredInt('from');
    const to = this.requiredInt('to');
    if (from > to) throw invalid('from', "'from' must not be after 'to'");
    return { from, to };
  }
}
