/**
 * Values for the fuzzer: hostile strings, boundary numbers, and bodies built from a JSON schema
 * with mutations (wrong types, missing fields, prototype keys, deep nesting, duplicate keys…),
 * serialised by hand so that a body can carry text `JSON.stringify` never writes.
 */
import fc from 'fast-check';
import type { JsonSchema } from './openapi.ts';

/** Text placed into the JSON verbatim: deep nesting, numbers JavaScript cannot hold, junk. */
export class Raw {
  constructor(readonly text: string) {}
}

/** Members written again after an object's own ones: `{"name":"a","name":1}`. */
export const DUPLICATES = Symbol('duplicates');
type WithDuplicates = Record<string, unknown> & { [DUPLICATES]?: [string, unknown][] };

export function toJsonText(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const own = Object.entries(value);
    const again = (value as WithDuplicates)[DUPLICATES] ?? [];
    return `{${[...own, ...again].map(([key, member]) => `${JSON.stringify(key)}:${toJsonText(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A property that is really called `__proto__`, never the prototype setter. */
export function defineOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
}

export const POLLUTION_KEY = 'fuzzPolluted';

export const HOSTILE_STRINGS: string[] = [
  '', ' ', '\t\n', '\u0000', 'a\u0000b', '\u0001\u001f', '\uD800', '\uDFFF\uD800', '\uFEFF', '\u202Eevil', '\u200B',
  '../', '../../../../etc/passwd', '..\\..\\windows\\win.ini', '/dev/null', 'file:///etc/passwd',
  "'", '"', '\\', "' OR '1'='1", "'; DROP TABLE accounts; --", "1) UNION SELECT password_hash FROM users--",
  '$1', '%s%s%s%n', '${7*7}', '{{7*7}}', '#{7*7}', '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'null', 'undefined',
  'NaN', 'Infinity', '-1', '0', '1e309', 'true', '[]', '{}', '😀', '👩‍👩‍👧‍👦', 'Ω≈ç√∫', 'ǅ', 'İı', 'ß', 'ﬀ', '\u0301', 'e\u0301',
  'ＡＢＣ', '١٢٣', 'x'.repeat(256), '😀'.repeat(300), 'a '.repeat(2000), 'Z'.repeat(70_000),
];

/** Path segments sent without encoding: traversal, broken escapes, separators. */
export const RAW_PATH_SEGMENTS = [
  '..', '.', '%2e%2e', '..%2f..%2f', '%', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%FF', 'a;b', 'a,b', '*', '~', '%20', '+',
  "'--", '%27%20OR%201%3D1', 'a'.repeat(201), 'b'.repeat(10_000),
];

export const HOSTILE_QUERY_VALUES = [
  '', ' ', '-1', '0', '1', '-0', '+1', '1.5', '1e2', '0x10', '0b1', '00001', ' 5', '5 ', '١', 'NaN', 'Infinity', '-Infinity',
  '2147483647', '2147483648', '-2147483649', '9007199254740993', '1e21', '1e309', '9'.repeat(400), 'true', 'false', 'null',
  '[]', '{}', 'asc', 'ASC', 'desc ', 'created_at', 'name', 'password_hash', 'id; DROP TABLE consents', '\u0000', '%00', '😀',
  '2026-13-45T99:99:99Z', '0000-00-00T00:00:00Z', '9999-12-31T23:59:59.999Z', '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '2026-02-30T00:00:00Z', 'q'.repeat(5000),
];

/** Replacements for any value: each a wrong type somewhere. */
export const WRONG_VALUES: unknown[] = [
  null, true, false, 0, -1, 1.5, -0, 1e308, 2 ** 53 + 2, new Raw('1e400'), new Raw('-1e400'), new Raw('123456789012345678901234567890'),
  '', 'x', '1', 'true', 'null', [], [null], [[]], {}, { a: 1 }, { '': null }, 'Z'.repeat(100_000),
];

/** Whole bodies that are not what any route wants. */
export const WHOLE_BODIES: (string | Buffer)[] = [
  '', ' ', 'null', 'true', '0', '-1', '"x"', '[]', '[{}]', '{}', '{', '}', '{"a":}', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}',
  '\uFEFF{}', 'NaN', '{"a":NaN}', '{"a":undefined}', '{"a":0x10}', '{"a":01}', '{"\\u0000":1}', '{"a":"\\ud800"}',
  '{"__proto__":{"fuzzPolluted":true}}', '{"constructor":{"prototype":{"fuzzPolluted":true}}}',
  ' '.repeat(60_000), '['.repeat(100_000), '{"a":'.repeat(12_000),
  `[${'0,'.repeat(30_000)}0]`,
  Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
];

/** Nested text of `depth` levels, arrays or objects. */
export function deep(depth: number, shape: 'array' | 'object'): Raw {
  return shape === 'array'
    ? new Raw(`${'['.repeat(depth)}1${']'.repeat(depth)}`)
    : new Raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
}

/** Where ids come from: the caller's records, the other tenant's, or nowhere. */
export interface IdSource {
  own(resource: string): string[];
  foreign(resource: string): string[];
}

const RESOURCE_OF_FIELD: Record<string, string> = {
  category_id: 'categories', accepted_categories: 'categories', rejected_categories: 'categories',
  group_id: 'groups', account_id: 'accounts', actionable_id: 'storage-items',
};

export function idValues(ids: IdSource, resource: string): fc.Arbitrary<string> {
  const own = ids.own(resource);
  const foreign = ids.foreign(resource);
  return fc.oneof(
    { weight: 6, arbitrary: own.length > 0 ? fc.constantFrom(...own) : fc.uuid() },
    { weight: 2, arbitrary: foreign.length > 0 ? fc.constantFrom(...foreign) : fc.uuid() },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  );
}

/** Strings at and past a field's length bounds, in one- and two-unit characters. */
function boundaryStrings(schema: JsonSchema): string[] {
  const max = schema.maxLength;
  const min = schema.minLength ?? 0;
  const out = [''.padEnd(min, 'm')];
  if (min > 0) out.push(''.padEnd(min - 1, 'm'));
  if (max !== undefined) out.push('x'.repeat(max), 'x'.repeat(max + 1), '😀'.repeat(max), '😀'.repeat(max + 1), 'é'.repeat(max + 1));
  return out;
}

/**
 * Strings of a pattern within a length range. Not `stringMatching(...).filter(length)`: fast-check
 * draws short matches, and a filter that never passes (`+` with a minLength of 16) loops forever
 * inside the generator, where no test timeout can stop it. Matches are joined until long enough and
 * clipped when too long, kept while the pattern still holds; otherwise the first match goes out as it
 * is, one more out-of-range value for the server to refuse.
 */
function matchingWithin(pattern: RegExp, min: number, max: number): fc.Arbitrary<string> {
  return fc.array(fc.stringMatching(pattern), { minLength: 1, maxLength: 12 }).map((parts) => {
    let joined = '';
    for (const part of parts) {
      joined += part;
      if (joined.length >= min) break;
    }
    const clipped = joined.slice(0, max);
    return clipped.length >= min && pattern.test(clipped) ? clipped : parts[0]!;
  });
}

function textFor(schema: JsonSchema, key: string, ctx: BodyContext): fc.Arbitrary<string> {
  const max = schema.maxLength ?? 300;
  const min = schema.minLength ?? 0;
  const resource = RESOURCE_OF_FIELD[key];
  let valid: fc.Arbitrary<string>;
  if (resource) valid = idValues(ctx.ids, resource);
  else if (schema.format === 'email' || key === 'email') {
    valid = fc.oneof(fc.emailAddress(), fc.constantFrom(...ctx.emails));
  } else if (schema.format === 'date-time') {
    valid = fc.oneof(
      fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constantFrom('0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00+14:00', '2026-01-01T24:00:00Z'),
    );
  } else if (schema.format === 'uuid') valid = fc.uuid();
  else if (schema.pattern) {
    valid = matchingWithin(new RegExp(schema.pattern), min, max);
  } else if (key.includes('password')) valid = fc.oneof(fc.constant(ctx.password), fc.string({ minLength: 8, maxLength: 40 }));
  else if (key === 'domain' || key === 'allowed_domains') valid = fc.domain();
  else if (key === 'url') valid = fc.webUrl();
  else valid = fc.oneof(fc.string({ minLength: Math.max(min, 1), maxLength: Math.min(max, 40) }), fc.string({ unit: 'grapheme', minLength: Math.max(min, 1), maxLength: Math.min(max, 20) }));
  return fc.oneof(
    { weight: 7, arbitrary: valid },
    { weight: 2, arbitrary: fc.constantFrom(...boundaryStrings(schema)) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  );
}

export interface BodyContext {
  ids: IdSource;
  /** Emails of the caller's tenant (never the other's: its marker must not enter a request). */
  emails: string[];
  password: string;
}

/** A value shaped by the schema: mostly valid, with bounds and hostile strings mixed in. */
export function fromSchema(schema: JsonSchema, key: string, ctx: BodyContext): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((branch) => fromSchema(branch, key, ctx)));
  if (schema.enum) return fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: fc.constantFrom('', 'ALL', 'other', 'Lax ') });
  if (schema.const !== undefined) return fc.constant(schema.const);
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = schema.minimum ?? -(2 ** 31);
      const max = schema.maximum ?? 2 ** 31;
      return fc.oneof({ weight: 4, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(min, max, min - 1, max + 1) });
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'string':
      return textFor(schema, key, ctx);
    case 'array': {
      const items = fromSchema(schema.items ?? {}, key, ctx);
      const max = schema.maxItems ?? 5;
      return fc.oneof(
        { weight: 6, arbitrary: fc.array(items, { maxLength: Math.min(max, 4) }) },
        { weight: 1, arbitrary: items.map((item) => Array.from({ length: max + 1 }, () => item)) },
      );
    }
    case 'object': {
      const properties = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, property]) => [name, fromSchema(property, name, ctx)]),
      );
      const record = fc.record(properties, { requiredKeys: schema.required ?? [] });
      const extra = schema.additionalProperties;
      if (typeof extra !== 'object') return record;
      const dictionary = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fromSchema(extra, key, ctx), { maxKeys: 3 });
      return fc.tuple(record, dictionary).map(([fixed, more]) => ({ ...more, ...fixed }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

type Path = (string | number)[];
interface Node { path: Path; container: 'object' | 'array' | undefined }

function nodesOf(value: unknown, path: Path = [], out: Node[] = []): Node[] {
  if (Array.isArray(value)) {
    out.push({ path, container: 'array' });
    value.forEach((item, i) => nodesOf(item, [...path, i], out));
  } else if (value !== null && typeof value === 'object' && !(value instanceof Raw)) {
    out.push({ path, container: 'object' });
    for (const [key, member] of Object.entries(value)) nodesOf(member, [...path, key], out);
  } else {
    out.push({ path, container: undefined });
  }
  return out;
}

function at(root: unknown, path: Path): any {
  return path.reduce<any>((node, key) => node[key], root);
}

function replace(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const parent = at(root, path.slice(0, -1));
  if (Array.isArray(parent)) parent[Number(path.at(-1))] = value;
  else defineOwn(parent, String(path.at(-1)), value);
  return root;
}

function remove(root: unknown, path: Path): unknown {
  const parent = at(root, path.slice(0, -1));
  if (Array.isArray(parent)) parent.splice(Number(path.at(-1)), 1);
  else delete parent[String(path.at(-1))];
  return root;
}

const EXTRA_KEYS: [string, unknown][] = [
  ['__proto__', { [POLLUTION_KEY]: true }],
  ['constructor', { prototype: { [POLLUTION_KEY]: true } }],
  ['prototype', { [POLLUTION_KEY]: true }],
  ['id', '00000000-0000-0000-0000-000000000000'],
  ['account_id', '00000000-0000-0000-0000-000000000000'],
  ['partner_id', '00000000-0000-0000-0000-000000000000'],
  ['created_at', '1970-01-01T00:00:00Z'],
  ['admin', true],
  ['unknown_field', 'x'],
  ['', ''],
];

export interface Body {
  payload: string | Buffer;
  mutation: string;
}

const describe = (path: Path) => (path.length === 0 ? 'body' : path.join('.'));

/** The valid-ish value as text, or one of many ways of spoiling it. */
export function mutated(value: unknown): fc.Arbitrary<Body> {
  const nodes = nodesOf(value);
  const leaves = nodes.filter((node) => node.path.length > 0);
  const objects = nodes.filter((node) => node.container === 'object');
  const keyed = objects.filter((node) => Object.keys(at(value, node.path)).length > 0);
  const pick = <T>(list: T[]) => fc.nat({ max: list.length - 1 }).map((i) => list[i]!);
  const fresh = () => structuredClone(value);
  const options: fc.WeightedArbitrary<Body>[] = [
    { weight: 10, arbitrary: fc.constant({ payload: toJsonText(value), mutation: 'as generated' }) },
    { weight: 2, arbitrary: fc.constantFrom(...WHOLE_BODIES).map((payload) => ({ payload, mutation: 'whole body replaced' })) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(1_000, 5_000, 10_000), fc.constantFrom<'array' | 'object'>('array', 'object'))
        .map(([depth, shape]) => ({ payload: deep(depth, shape).text, mutation: `${depth}-deep ${shape} body` })),
    },
  ];
  if (leaves.length > 0) {
    options.push(
      {
        weight: 4,
        arbitrary: fc.tuple(pick(leaves), fc.constantFrom(...WRONG_VALUES)).map(([node, wrong]) => ({
          payload: toJsonText(replace(fresh(), node.path, structuredCloneRaw(wrong))), mutation: `wrong value at ${describe(node.path)}`,
        })),
      },
      {
        weight: 2,
        arbitrary: pick(leaves).map((node) => ({ payload: toJsonText(remove(fresh(), node.path)), mutation: `${describe(node.path)} removed` })),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(pick(leaves), fc.constantFrom(101, 201, 1_000, 10_000, 40_000)).map(([node, length]) => ({
          payload: toJsonText(replace(fresh(), node.path, Array.from({ length }, () => shortened(at(value, node.path) ?? 0)))),
          mutation: `${length}-item array at ${describe(node.path)}`,
        })),
      },
    );
  }
  if (objects.length > 0) {
    options.push(
      {
        weight: 3,
        arbitrary: fc.tuple(pick(objects), fc.constantFrom(...EXTRA_KEYS)).map(([node, [key, extra]]) => {
          const copy = fresh();
          defineOwn(at(copy, node.path), key, structuredClone(extra));
          return { payload: toJsonText(copy), mutation: `extra key ${JSON.stringify(key)} at ${describe(node.path)}` };
        }),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(pick(objects), fc.constantFrom(1_000, 5_000, 10_000), fc.constantFrom<'array' | 'object'>('array', 'object'))
          .map(([node, depth, shape]) => {
            const copy = fresh();
            defineOwn(at(copy, node.path), 'nested', deep(depth, shape));
            return { payload: toJsonText(copy), mutation: `${depth}-deep ${shape} at ${describe(node.path)}.nested` };
          }),
      },
    );
  }
  if (keyed.length > 0) {
    options.push({
      weight: 2,
      arbitrary: fc.tuple(pick(keyed), fc.nat(), fc.constantFrom(...WRONG_VALUES)).map(([node, n, wrong]) => {
        const copy = fresh();
        const target = at(copy, node.path) as WithDuplicates;
        const keys = Object.keys(target);
        const key = keys[n % keys.length]!;
        target[DUPLICATES] = [[key, structuredCloneRaw(wrong)]];
        return { payload: toJsonText(copy), mutation: `duplicate key ${key} at ${describe(node.path)}` };
      }),
    });
  }
  return fc.oneof(...options);
}

/** structuredClone drops the class of a Raw; Raw values are immutable and can be shared. */
function structuredCloneRaw(value: unknown): unknown {
  return value instanceof Raw ? value : structuredClone(value);
}

/** Array items stay small, so that a 40,000-item array tests the array, not the memory of the fuzzer. */
function shortened(item: unknown): unknown {
  if (typeof item === 'string') return item.length > 64 ? item.slice(0, 64) : item;
  // A whole sub-object repeated 40,000 times (the banner's settings with every text) would pass V8's
  // longest string: a large one is repeated as an empty one of its kind.
  if (item !== null && typeof item === 'object' && toJsonText(item).length > 1024) return Array.isArray(item) ? [] : {};
  return item;
}
