/** Requests for every operation: the caller's token (or a wrong one), path, query, body, headers. */
import fc from 'fast-check';
import { PASSWORD } from '../helpers/tenants.ts';
import type { Operation, Parameter } from './openapi.ts';
import {
  fromSchema, HOSTILE_QUERY_VALUES, HOSTILE_STRINGS, idValues, mutated, RAW_PATH_SEGMENTS, WHOLE_BODIES,
  type Body, type BodyContext, type IdSource,
} from './values.ts';
import { EVERYONE, resourceOf, type Resource, type Who, type World } from './world.ts';

export type TokenChoice =
  | { kind: 'own'; who: Who }
  /** A valid token of the outsider tenant, which owns nothing the requests name. */
  | { kind: 'outsider'; who: Who }
  | { kind: 'none' }
  | { kind: 'header'; label: string; make: (world: World) => string };

export interface FuzzRequest {
  op: Operation;
  url: string;
  token: TokenChoice;
  headers: Record<string, string>;
  payload: string | Buffer | undefined;
  mutation: string;
  /** Whose record the path names, if anyone's. */
  pathOwner: 'a' | 'b' | undefined;
}

/** The token types a route is meant for. */
export function rightCallers(auth: string): Who[] {
  switch (auth) {
    case 'partner': return ['partner'];
    case 'user': return ['admin', 'member'];
    case 'partner-or-user': return ['partner', 'admin', 'member'];
    case 'account': return ['account', 'admin', 'member'];
    case 'any': return EVERYONE;
    default: return [];
  }
}

const BAD_AUTHORIZATION: { label: string; make: (world: World) => string }[] = [
  { label: 'empty', make: () => '' },
  { label: 'Bearer alone', make: () => 'Bearer' },
  { label: 'Bearer and spaces', make: () => 'Bearer    ' },
  { label: 'prefix only', make: () => 'Bearer csu_' },
  { label: 'unknown token', make: () => `Bearer csu_${'A'.repeat(43)}` },
  { label: 'unknown partner token', make: () => `Bearer csp_${'9'.repeat(43)}` },
  { label: 'wrong prefix', make: (w) => `Bearer xyz_${w.a.tenant.tokens.admin.slice(4)}` },
  { label: 'Basic', make: () => 'Basic dXNlcjpwYXNzd29yZA==' },
  { label: 'token without scheme', make: (w) => w.a.tenant.tokens.admin },
  { label: 'lower-case scheme', make: (w) => `bearer ${w.a.tenant.tokens.account}` },
  { label: 'two tokens', make: (w) => `Bearer ${w.a.tenant.tokens.admin} ${w.a.tenant.tokens.partner}` },
  { label: 'revoked', make: (w) => `Bearer ${w.revoked}` },
  { label: 'expired', make: (w) => `Bearer ${w.expired}` },
  { label: 'huge', make: () => `Bearer csu_${'a'.repeat(100_000)}` },
  { label: 'many spaces', make: () => `Bearer ${' '.repeat(50_000)}x y` },
  { label: 'sql', make: () => "Bearer csu_' OR '1'='1" },
  { label: 'unicode', make: () => 'Bearer csu_ÄÖÜ😀' },
];

function tokens(op: Operation): fc.Arbitrary<TokenChoice> {
  const right = rightCallers(op.auth);
  return fc.oneof(
    { weight: 16, arbitrary: right.length > 0 ? fc.constantFrom(...right).map((who): TokenChoice => ({ kind: 'own', who })) : fc.constant<TokenChoice>({ kind: 'none' }) },
    { weight: 1, arbitrary: fc.constantFrom(...EVERYONE).map((who): TokenChoice => ({ kind: 'own', who })) },
    { weight: 1, arbitrary: fc.constantFrom(...EVERYONE).map((who): TokenChoice => ({ kind: 'outsider', who })) },
    { weight: 1, arbitrary: fc.constant<TokenChoice>({ kind: 'none' }) },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_AUTHORIZATION).map((bad): TokenChoice => ({ kind: 'header', ...bad })) },
  );
}

interface PathValue { text: string; owner: 'a' | 'b' | undefined }

function pathValues(op: Operation, param: Parameter, world: World): fc.Arbitrary<PathValue> {
  const resource = resourceOf(op.path, param.name);
  const mine = resource ? (op.method === 'GET' ? [...world.a.main[resource], ...world.a.spare[resource]] : world.a.spare[resource]) : [];
  const theirs = resource ? [...world.b.main[resource], ...world.b.spare[resource]] : [];
  const nobody = (text: string): PathValue => ({ text, owner: undefined });
  return fc.oneof(
    { weight: 10, arbitrary: mine.length > 0 ? fc.constantFrom(...mine).map((text): PathValue => ({ text, owner: 'a' })) : fc.uuid().map(nobody) },
    { weight: 3, arbitrary: theirs.length > 0 ? fc.constantFrom(...theirs).map((text): PathValue => ({ text, owner: 'b' })) : fc.uuid().map(nobody) },
    { weight: 2, arbitrary: fc.uuid().map(nobody) },
    { weight: 1, arbitrary: (mine.length > 0 ? fc.constantFrom(...mine) : fc.uuid()).map((id) => nobody(id.toUpperCase())) },
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS).map((text) => nobody(encode(text))) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map((text) => nobody(encode(text))) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_PATH_SEGMENTS).map(nobody) },
    // An empty segment names another route (`/consents/` is the list), so it tests nothing of this one.
  ).filter((value) => value.text !== '');
}

function queryValues(param: Parameter, ids: IdSource): fc.Arbitrary<string> {
  const { schema, name } = param;
  let valid: fc.Arbitrary<string>;
  if (schema.enum) valid = fc.constantFrom(...schema.enum.map(String));
  else if (schema.type === 'integer') {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? 1_000;
    valid = fc.oneof(fc.integer({ min, max: Math.min(max, min + 200) }), fc.constantFrom(min, max, min - 1, max + 1)).map(String);
  } else if (schema.type === 'boolean') valid = fc.constantFrom('true', 'false', '1', '0', 'TRUE', 'yes');
  else if (schema.format === 'date-time') {
    valid = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  } else if (name.endsWith('_id') && name !== 'session_id' && name !== 'user_id') {
    valid = idValues(ids, name === 'actionable_id' ? 'storage-items' : `${name.slice(0, -3)}s`.replace('categorys', 'categories'));
  } else valid = fc.string({ maxLength: Math.min(schema.maxLength ?? 50, 50) });
  return fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_QUERY_VALUES) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 1, arbitrary: fc.constant('v'.repeat((schema.maxLength ?? 100) + 1)) },
  );
}

const EXTRA_QUERY: [string, string][] = [
  ['__proto__', 'x'], ['__proto__[fuzzPolluted]', '1'], ['constructor[prototype][fuzzPolluted]', '1'], ['unknown', 'x'],
  ['limit[]', '5'], ['page[$gt]', '1'], ['sort', 'id;select 1'], ['', ''], ['account_id', '00000000-0000-0000-0000-000000000000'],
];

type Pair = [string, string];

/** encodeURIComponent, with lone surrogates sent as the (invalid) UTF-8 bytes they would take. */
export function encode(text: string): string {
  const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;
  let out = '';
  let chunk = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code < 0xdc00 && isLow(text.charCodeAt(i + 1))) {
      chunk += text.slice(i, i + 2);
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      const bytes = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
      out += encodeURIComponent(chunk) + bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      chunk = '';
    } else {
      chunk += text[i];
    }
  }
  return out + encodeURIComponent(chunk);
}

function query(op: Operation, ids: IdSource): fc.Arbitrary<Pair[]> {
  const perParam = op.queryParams.map((param) => {
    const value = queryValues(param, ids);
    return fc.oneof(
      { weight: 5, arbitrary: fc.constant<Pair[]>([]) },
      { weight: 4, arbitrary: value.map((v): Pair[] => [[param.name, v]]) },
      { weight: 1, arbitrary: fc.array(value, { minLength: 2, maxLength: 3 }).map((vs) => vs.map((v): Pair => [param.name, v])) },
    );
  });
  const extra = fc.oneof({ weight: 9, arbitrary: fc.constant<Pair[]>([]) }, { weight: 1, arbitrary: fc.constantFrom(...EXTRA_QUERY).map((pair) => [pair]) });
  return fc.tuple(fc.tuple(...perParam), extra).map(([lists, more]) => [...lists.flat(), ...more]);
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8'];
const OTHER_TYPES = [
  'APPLICATION/JSON', 'application/json; charset=iso-8859-1', 'application/json;charset=utf-16', 'text/plain', 'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/vnd.api+json', 'application/jsonx',
  '*/*', 'application/json, text/plain', 'json', '', 'application/json; boundary=' + 'b'.repeat(5_000),
];

function contentTypes(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...JSON_TYPES) },
    { weight: 2, arbitrary: fc.constantFrom(...OTHER_TYPES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const ODD_HEADERS: Record<string, string>[] = [
  { 'x-request-id': 'r'.repeat(5_000) }, { 'x-request-id': '../../etc' }, { 'x-forwarded-for': '1.2.3.4, ::1' }, { 'sec-gpc': '1' },
  { 'user-agent': 'U'.repeat(50_000) }, { 'accept': 'text/html' }, { 'accept-encoding': 'gzip, br' }, { 'x-long': 'L'.repeat(100_000) },
  { 'cookie': `a=${'c'.repeat(10_000)}` }, { 'content-length': '0' }, { 'transfer-encoding': 'chunked' },
];

function extraHeaders(op: Operation, world: World): fc.Arbitrary<Record<string, string>> {
  const origins = op.path.startsWith('/widget/')
    ? [{ origin: `https://${world.a.tenant.account.domain}` }, { origin: 'https://evil.example' }, { origin: 'null' }, { origin: 'x'.repeat(3_000) }]
    : [{ origin: 'https://evil.example' }];
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant({}) },
    { weight: 2, arbitrary: fc.constantFrom(...origins) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_HEADERS) },
  );
}

function bodies(op: Operation, ctx: BodyContext): fc.Arbitrary<Body | undefined> {
  if (op.body) return fromSchema(op.body, '', ctx).chain(mutated);
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(...WHOLE_BODIES).map((payload) => ({ payload, mutation: 'body on a route that takes none' })) },
  );
}

function encodePair([key, value]: Pair, raw: boolean): string {
  return raw ? `${key}=${value}` : `${encode(key)}=${encode(value)}`;
}

/** Every request of one operation. */
export function requestsFor(op: Operation, world: World): fc.Arbitrary<FuzzRequest> {
  const ids: IdSource = {
    own: (resource) => [...(world.a.main[resource as Resource] ?? []), ...(world.a.spare[resource as Resource] ?? [])],
    foreign: (resource) => [...(world.b.main[resource as Resource] ?? []), ...(world.b.spare[resource as Resource] ?? [])],
  };
  const { tenant } = world.a;
  const ctx: BodyContext = { ids, emails: [tenant.admin.email, tenant.member.email], password: PASSWORD };
  const path = fc.tuple(...op.pathParams.map((param) => pathValues(op, param, world).map((value) => [param.name, value] as const)));
  const accountChoice = fc.constantFrom('main', 'main', 'main', 'main', 'main', 'main', 'none', 'foreign', 'junk');
  return fc.record({
    token: tokens(op),
    path,
    query: query(op, ids),
    rawQuery: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    accountChoice,
    body: bodies(op, ctx),
    contentType: contentTypes(),
    headers: extraHeaders(op, world),
  }).map(({ token, path: values, query: pairs, rawQuery, accountChoice: choice, body, contentType, headers }) => {
    let url = op.path;
    let pathOwner: 'a' | 'b' | undefined;
    for (const [name, value] of values) {
      url = url.replace(`{${name}}`, value.text);
      pathOwner = value.owner === 'b' ? 'b' : (pathOwner ?? value.owner);
    }
    // A user token reaches an account route through `account_id` once the user has several accounts.
    const user = token.kind === 'own' && (token.who === 'admin' || token.who === 'member');
    if (op.auth === 'account' && user && choice !== 'none') {
      const accountId = { main: tenant.account.id, foreign: world.b.tenant.account.id, junk: "1' OR 1=1" }[choice]!;
      pairs = [...pairs, ['account_id', accountId]];
    }
    const search = pairs.map((pair) => encodePair(pair, rawQuery)).join('&');
    const all: Record<string, string> = { ...headers };
    if (body !== undefined && contentType !== undefined) all['content-type'] = contentType;
    return {
      op, url: search ? `${url}?${search}` : url, token, headers: all, payload: body?.payload, mutation: body?.mutation ?? 'no body', pathOwner,
    };
  });
}
