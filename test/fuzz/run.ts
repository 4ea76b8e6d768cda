/** The fuzzing loop: fast-check draws requests for every operation, each answer is checked. */
import fc from 'fast-check';
import { problemsOf, type Answer } from './check.ts';
import { operationsOf } from './openapi.ts';
import { requestsFor, type FuzzRequest } from './requests.ts';
import { POLLUTION_KEY } from './values.ts';
import type { World } from './world.ts';

export interface FuzzOptions {
  seed: number;
  runs: number;
  /** An answer slower than this is a finding (a hang, or work that grows with hostile input). */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface Finding {
  signature: string;
  count: number;
  /** The first request that showed it, enough to reproduce it by hand. */
  example: {
    index: number; method: string; url: string; token: string; headers: Record<string, string>;
    payload: string; mutation: string; status: number; body: string;
  };
}

export interface FuzzResult {
  seed: number;
  requests: number;
  ms: number;
  statuses: Record<number, number>;
  operations: number;
  findings: Finding[];
  slowest: { ms: number; request: string };
}

const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

function tokenLabel(request: FuzzRequest): string {
  const { token } = request;
  if (token.kind === 'own') return `A's ${token.who}`;
  if (token.kind === 'outsider') return `outsider's ${token.who}`;
  if (token.kind === 'header') return `authorization: ${token.label}`;
  return 'none';
}

async function authorization(world: World, request: FuzzRequest): Promise<string | undefined> {
  const { token, op } = request;
  if (token.kind === 'none') return undefined;
  if (token.kind === 'header') return token.make(world);
  const tenant = token.kind === 'outsider' ? world.outsider : world.a.tenant;
  // Logging out revokes the token it is sent with: spend a fresh one.
  if (op.method === 'DELETE' && op.path === '/api/v1/auth') return `Bearer ${await world.freshToken(token.who, tenant)}`;
  return `Bearer ${tenant.tokens[token.who]}`;
}

function timeout(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref());
}

/** Sends `runs` requests drawn from `seed`; collects every distinct problem instead of stopping at the first. */
export async function fuzz(world: World, options: FuzzOptions): Promise<FuzzResult> {
  const { app } = world.t;
  const operations = operationsOf(app);
  const arbitrary = fc.oneof(...operations.map((op) => requestsFor(op, world)));
  const findings = new Map<string, Finding>();
  const statuses: Record<number, number> = {};
  const timeoutMs = options.timeoutMs ?? 10_000;
  let index = 0;
  let slowest = { ms: 0, request: '' };
  const started = performance.now();

  const record = (signature: string, request: FuzzRequest, headers: Record<string, string>, answer: Answer) => {
    const known = findings.get(signature);
    if (known) {
      known.count++;
      return;
    }
    findings.set(signature, {
      signature,
      count: 1,
      example: {
        index, method: request.op.method, url: clip(request.url, 500), token: tokenLabel(request),
        headers: Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'authorization').map(([k, v]) => [k, clip(v, 80)])),
        payload: request.payload === undefined ? '' : clip(request.payload.toString()), mutation: request.mutation,
        status: answer.status, body: clip(answer.body, 500),
      },
    });
  };

  const property = fc.asyncProperty(arbitrary, async (request) => {
    index++;
    const headers = { ...request.headers };
    const auth = await authorization(world, request);
    if (auth !== undefined) headers.authorization = auth;
    const begin = performance.now();
    let answer: Answer;
    try {
      const response = await Promise.race([
        app.inject({ method: request.op.method as 'GET', url: request.url, headers, payload: request.payload }),
        timeout(timeoutMs),
      ]);
      answer = { status: response.statusCode, headers: response.headers, body: response.body };
    } catch (error) {
      answer = { status: 0, headers: {}, body: String(error) };
      record(`${request.op.method} ${request.op.path}: ${String(error).slice(0, 80)}`, request, headers, answer);
      return true;
    }
    const ms = performance.now() - begin;
    if (ms > slowest.ms) slowest = { ms, request: `${request.op.method} ${clip(request.url, 120)} (${request.mutation})` };
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    const { token, pathOwner, op } = request;
    // The public widget serves any account's banner to anyone: B's account there shows B.
    const widgetOfB = op.auth === 'public' && pathOwner === 'b';
    const problems = problemsOf(answer, { op, forbidden: widgetOfB ? [] : [world.b.marker] });
    const othersRecord = pathOwner === 'b' || (pathOwner === 'a' && token.kind === 'outsider');
    if (othersRecord && op.auth !== 'public' && answer.status < 300) {
      problems.push(`another tenant's record answered ${answer.status}`);
    }
    if (Object.prototype.hasOwnProperty.call(Object.prototype, POLLUTION_KEY)) {
      delete (Object.prototype as Record<string, unknown>)[POLLUTION_KEY];
      problems.push('Object.prototype polluted');
    }
    for (const problem of problems) record(`${request.op.method} ${request.op.path}: ${problem}`, request, headers, answer);
    if (options.log && index % 2_000 === 0) {
      options.log(`fuzz: ${index}/${options.runs} requests, ${findings.size} findings, ${Math.round(performance.now() - started)} ms`);
    }
    return true;
  });
  await fc.assert(property, { seed: options.seed, numRuns: options.runs, endOnFailure: true });
  return {
    seed: options.seed,
    requests: index,
    ms: Math.round(performance.now() - started),
    statuses,
    operations: operations.length,
    findings: [...findings.values()],
    slowest: { ms: Math.round(slowest.ms), request: slowest.request },
  };
}

/** A findings list a person can read and replay: each problem once, with the routes that showed it. */
export function describeFindings(result: FuzzResult): string {
  const byProblem = new Map<string, Finding[]>();
  for (const finding of result.findings) {
    const problem = finding.signature.slice(finding.signature.indexOf(': ') + 2).replace(/ by \w+$/, '');
    byProblem.set(problem, [...(byProblem.get(problem) ?? []), finding]);
  }
  const lines = [...byProblem].map(([problem, findings]) => {
    const routes = findings.map((f) => `${f.signature.slice(0, f.signature.indexOf(': '))} ×${f.count}`).join(', ');
    return `- ${problem}\n    on ${routes}\n    e.g. ${JSON.stringify(findings[0]!.example)}`;
  });
  return `${result.findings.length} findings in ${result.requests} requests (seed ${result.seed}; replay with FUZZ_SEED=${result.seed}):\n${lines.join('\n')}`;
}
