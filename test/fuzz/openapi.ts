/** The operations the fuzzer walks, read from the app's own OpenAPI document and route table. */
import type { FastifyInstance } from 'fastify';

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  maxProperties?: number;
  items?: JsonSchema;
  maxItems?: number;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}

export interface Parameter {
  name: string;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** OpenAPI form: `/api/v1/categories/{id}`. */
  path: string;
  operationId: string;
  /** Statuses the operation declares. */
  statuses: Set<number>;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body: JsonSchema | undefined;
  /** `config.auth` of the route (`account`, `partner`, `public`…) and whether it is an admin write. */
  auth: string;
  admin: boolean;
  /** The operation's 400 is the single-object form `{"error": {...}}` (the contract names these routes). */
  singleForm400: boolean;
  /** Error statuses the operation declares with a body that is not JSON (the banner script's 404 comment), by content type. */
  textErrors: Map<number, string>;
}

interface DocOperation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
  parameters?: { in: string; name: string; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every operation under /api/v1 and /widget, joined with the route table's access rule. */
export function operationsOf(app: FastifyInstance): Operation[] {
  const doc = app.swagger() as unknown as { paths: Record<string, Record<string, DocOperation>> };
  const rules = new Map(app.routeTable.map((route) => [`${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`, route]));
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!/^\/(api\/v1|widget)\//.test(path)) continue;
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const rule = rules.get(`${method.toUpperCase()} ${path}`);
      if (!rule) throw new Error(`${method} ${path} is documented but not routed`);
      const parameters = op.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        statuses: new Set(Object.keys(op.responses).map(Number)),
        pathParams: parameters.filter((p) => p.in === 'path').map(({ name, schema }) => ({ name, schema })),
        queryParams: parameters.filter((p) => p.in === 'query').map(({ name, schema }) => ({ name, schema })),
        body: op.requestBody?.content['application/json']?.schema,
        auth: rule.auth ?? 'none',
        admin: rule.admin,
        singleForm400: op.responses['400']?.content?.['application/json']?.schema.properties?.error !== undefined,
        textErrors: new Map(Object.entries(op.responses).flatMap(([status, response]) => {
          const types = Object.keys(response.content ?? {});
          return Number(status) >= 400 && types.length > 0 && !types.includes('application/json') ? [[Number(status), types[0]!] as const] : [];
        })),
      });
    }
  }
  return operations;
}
