import { z } from './zod.js';

/**
 * The environment variables a process reads, each with how its text is read, its default and a
 * one-line meaning. A process's settings module lists its variables once (defineSettings), parses its
 * environment once at start-up, and docs/deployment.md's tables are printed from the same lists.
 */

/** One environment variable: its zod schema (from the raw text, unset as undefined) and what the docs say of it. */
export interface EnvVar<T> {
  schema: z.ZodType<T, string | undefined>;
  /** The default as the docs show it ('' when there is none). */
  default: string;
  /** The default is described in words (describedDefault), not a literal value. */
  described?: boolean;
  description: string;
}

type Raw = string | undefined;

/** An unset or empty variable reads as unset (`FOO= node …` is how a shell clears one). */
const unset = (raw: Raw): raw is undefined => raw === undefined || raw.trim() === '';

/**
 * A variable read by `read`, which returns undefined when the text is not what `expected` says.
 * With a default the value is always there; without one it is T | undefined (or required). A
 * `secret` one (a URL with a password) is not quoted back in the error.
 */
function variable<T>(
  read: (raw: string) => T | undefined,
  expected: string,
  description: string,
  fallback?: T,
  { required = false, secret = false } = {},
): EnvVar<T | undefined> {
  const schema = z.string().optional();
  return {
    schema: schema.transform((raw, ctx) => {
      if (unset(raw)) {
        if (required) ctx.addIssue({ code: 'custom', message: `required, ${expected}` });
        return fallback;
      }
      const value = read(raw.trim());
      if (value === undefined) ctx.addIssue({ code: 'custom', message: `expected ${expected}${secret ? '' : `, got "${raw}"`}` });
      return value;
    }),
    default: fallback === undefined ? '' : String(fallback),
    description,
  };
}

interface Opts<T> {
  description: string;
  default?: T;
}

const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (raw: string) => {
    const n = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
  };

/** Builders for the kinds of variables the processes read. */
export const envVar = {
  /** A duration in milliseconds: a whole number of at least `min` (default 1). */
  ms<D extends number | undefined = undefined>(
    o: Opts<number> & { default?: D; min?: number },
  ): EnvVar<D extends number ? number : number | undefined> {
    const min = o.min ?? 1;
    return variable(wholeNumber(min), `a whole number of milliseconds ≥ ${min}`, o.description, o.default) as never;
  },
  /** A whole number in [min, max]. */
  int<D extends number | undefined = undefined>(
    o: Opts<number> & { default?: D; min: number; max?: number },
  ): EnvVar<D extends number ? number : number | undefined> {
    const range = o.max === undefined ? `≥ ${o.min}` : `from ${o.min} to ${o.max}`;
    return variable(wholeNumber(o.min, o.max), `a whole number ${range}`, o.description, o.default) as never;
  },
  /** A TCP port (1–65535; from 0, "any free one", where `anyFree` says so). */
  port(o: Opts<number> & { default: number; anyFree?: boolean }): EnvVar<number> {
    const min = o.anyFree ? 0 : 1;
    return variable(wholeNumber(min, 65535), `a port number from ${min} to 65535`, o.description, o.default) as EnvVar<number>;
  },
  /** A count (a whole number ≥ 1) or `auto`, kept as text for the code that resolves `auto`. */
  countOrAuto(o: Opts<string> & { default: string }): EnvVar<string> {
    const read = (raw: string) => (raw === 'auto' || wholeNumber(1)(raw) !== undefined ? raw : undefined);
    return variable(read, 'a whole number ≥ 1 or auto', o.description, o.default) as EnvVar<string>;
  },
  /** Free text. */
  text<D extends string | undefined = undefined>(
    o: Opts<string> & { default?: D },
  ): EnvVar<D extends string ? string : string | undefined> {
    return variable((raw) => raw, 'a value', o.description, o.default) as never;
  },
  /** An http(s) URL (a base URL: no trailing slash is added or removed). */
  url<D extends string | undefined = undefined>(o: Opts<string> & { default?: D }): EnvVar<D extends string ? string : string | undefined> {
    const read = (raw: string) => (z.url({ protocol: /^https?$/ }).safeParse(raw).success ? raw : undefined);
    return variable(read, 'an http(s) URL', o.description, o.default) as never;
  },
  /** A postgres:// connection URL. */
  postgresUrl<R extends boolean = false, D extends string | undefined = undefined>(
    o: Opts<string> & { required?: R; default?: D },
  ): EnvVar<R extends true ? string : D extends string ? string : string | undefined> {
    const read = (raw: string) => (/^postgres(ql)?:\/\/\S+$/.test(raw) ? raw : undefined);
    return variable(read, 'a postgresql:// connection URL', o.description, o.default, { required: o.required, secret: true }) as never;
  },
  /** One of a few words. */
  oneOf<const W extends readonly [string, ...string[]], D extends W[number] | undefined = undefined>(
    words: W,
    o: Opts<W[number]> & { default?: D },
  ): EnvVar<D extends string ? W[number] : W[number] | undefined> {
    const read = (raw: string) => (words as readonly string[]).find((w) => w === raw) as W[number] | undefined;
    return variable(read, `one of ${words.join(', ')}`, o.description, o.default) as never;
  },
  /** On when the variable is `1` or `true`, off when `0`, `false` or unset. */
  flag(o: { description: string }): EnvVar<boolean> {
    const read = (raw: string) => (['1', 'true'].includes(raw) ? true : ['0', 'false'].includes(raw) ? false : undefined);
    const v = variable(read, '1 or 0 (true or false)', o.description, false) as EnvVar<boolean>;
    return { ...v, default: 'off' };
  },
};

/** A default the docs describe in words (one computed from another variable, or the machine's). */
export function describedDefault<T>(v: EnvVar<T>, text: string): EnvVar<T> {
  return { ...v, default: text, described: true };
}

/** What was wrong with the environment, in one line: each bad variable, what it expects and (unless secret) what it got. */
export class SettingsError extends Error {
  constructor(readonly problems: { name: string; message: string }[]) {
    super(`invalid environment: ${problems.map((p) => `${p.name}: ${p.message}`).join('; ')}`);
    this.name = 'SettingsError';
  }
}

type Values<V extends Record<string, EnvVar<unknown>>> = { readonly [K in keyof V]: V[K] extends EnvVar<infer T> ? T : never };

export interface SettingsSpec<V extends Record<string, EnvVar<unknown>>> {
  vars: V;
  /** Parse an environment (process.env, or a test's own): a frozen object, or a SettingsError naming every bad variable. */
  parse(environment: Record<string, string | undefined>): Values<V>;
}

/** A process's variables, parsed together: `parse` checks every one and reports all the bad ones at once. */
export function defineSettings<V extends Record<string, EnvVar<unknown>>>(vars: V): SettingsSpec<V> {
  const schema = z.object(Object.fromEntries(Object.entries(vars).map(([name, v]) => [name, v.schema])));
  return {
    vars,
    parse(environment) {
      const picked = Object.fromEntries(Object.keys(vars).map((name) => [name, environment[name]]));
      const r = schema.safeParse(picked);
      if (!r.success) throw new SettingsError(r.error.issues.map((i) => ({ name: String(i.path[0]), message: i.message })));
      return Object.freeze(r.data) as Values<V>;
    },
  };
}

/** The markdown table of a process's variables, as docs/deployment.md shows it. */
export function settingsTable(vars: Record<string, EnvVar<unknown>>): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const fallback = (v: EnvVar<unknown>) => (v.default === '' ? '—' : v.described ? cell(v.default) : `\`${v.default}\``);
  const rows = Object.entries(vars)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, v]) => `| \`${name}\` | ${fallback(v)} | ${cell(v.description)} |`);
  return ['| Variable | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/**
 * Start-up: the settings, or a one-line message naming the bad variables and exit code 2 (no stack
 * trace: the operator's fix is in the environment, not the code).
 */
export function settingsOrExit<T>(processName: string, load: () => T): T {
  try {
    return load();
  } catch (e) {
    if (!(e instanceof SettingsError)) throw e;
    console.error(`${processName}: ${e.message}`);
    return process.exit(2);
  }
}
