import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/outage.ts';
import { AppError, ValidationError } from './app-errors.ts';
import { bodyMessages, queryMessage } from './validation.ts';

/** Route option: where the seed specifies the single-object 400 form (`{"error": {...}}`). */
export type ErrorForm = 'array' | 'single';

declare module 'fastify' {
  interface FastifyContextConfig {
    errorForm?: ErrorForm;
  }
}


function send(reply: FastifyReply, status: number, message: string, form: ErrorForm = 'array') {
  const code = status;
  const body = form === 'single' && status === 400 ? { error: { code, message } } : { errors: [{ code, message }] };
  // Error bodies bypass the route's response schemas: a route's 400 may be either form.
  return reply.code(status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
}

function sendValidation(reply: FastifyReply, messages: string[]) {
  return reply.code(422).type('application/json; charset=utf-8').serializer(JSON.stringify).send({ errors: messages.map((error) => ({ error })) });
}

const FASTIFY_MESSAGES: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'Content-Type must be application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'Content-Length does not match the body'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'Request body is too large'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'Request body is empty but Content-Type is application/json'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'Request body is not valid JSON'],
};

/**
 * Refusals Fastify makes before routing, which bypass the error handler: a path parameter that is
 * not valid percent-encoding or is longer than any id names no record.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') return send(reply, 404, 'Record not found');
  request.log.error({ err: error }, 'unhandled error');
  return send(reply, 500, 'Internal server error');
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request took too long to arrive'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'Request headers (with the URL) are too large'],
};

/**
 * Requests Node refuses before Fastify sees them (headers or URL too large, too slow, not HTTP):
 * answered in the contract's form instead of Fastify's own body, then the connection is closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify({ errors: [{ code: status, message }] });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const form = request.routeOptions.config?.errorForm ?? 'array';
    if (error instanceof ValidationError) return sendValidation(reply, error.messages);
    if (error instanceof AppError) {
      reply.headers(error.headers);
      return send(reply, error.statusCode, error.message, form);
    }
    if (error.validation) {
      const context = error.validationContext;
      if (context === 'body') {
        const messages = bodyMessages(error.validation);
        // A route whose seed form is the single-object 400 answers its body problems in that form too.
        if (form === 'single') return send(reply, 400, messages.join(', '), form);
        return sendValidation(reply, messages);
      }
      if (context === 'params') return send(reply, 404, 'Record not found');
      return send(reply, 400, queryMessage(error.validation[0]), form);
    }
    const known = error.code ? FASTIFY_MESSAGES[error.code] : undefined;
    if (known) return send(reply, known[0], known[1], form);
    if (error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP')) {
      return send(reply, 400, 'Request body is not valid JSON', form);
    }
    if ((error as { code?: string }).code === '23503') {
      // A foreign key refused the write: the record it names went away in a concurrent request.
      return sendValidation(reply, ['A record this change refers to no longer exists']);
    }
    if (request.raw.socket?.destroyed) {
      // The client went away (mid-body, say): nobody reads the answer, and the database is not at fault.
      request.log.debug({ err: error }, 'client closed the connection');
      return send(reply, 400, 'Request aborted', form);
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      reply.header('retry-after', '5');
      return send(reply, 503, 'Service temporarily unavailable, please retry later');
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return send(reply, status, error.message);
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, 500, 'Internal server error');
  });

  app.setNotFoundHandler((_request, reply) => send(reply, 404, 'Not found'));
}
