import { resourceRoutes, sameAccess } from '../../http/resource-routes.ts';
import type { RoutesPlugin } from '../../services.ts';
import { ResetBody, ResetRequestBody, ResetRequestResponse, ResetResponse } from './password-resets.schema.ts';
import { RESET_REQUESTED, resetPassword } from './password-resets.service.ts';
import { ResetQueue } from './reset-queue.ts';

/** Password reset by email, for people who cannot sign in: public, and throttled per IP with a budget of its own. */
export const passwordResetsRoutes: RoutesPlugin = async (app, { services }) => {
  const resets = new ResetQueue(services);
  app.addHook('onClose', () => resets.close());
  const reset = resourceRoutes(app, { path: '/password/reset', tags: ['Authentication'], access: sameAccess({ auth: 'public', throttle: 'reset' }) });

  reset.route('POST', '', {
    rule: 'write', operationId: 'requestPasswordReset',
    summary: 'Email a single-use link (valid 1 hour) to reset the password; 202 whether or not the email is known',
    body: ResetRequestBody, response: { 202: ResetRequestResponse },
  }, async (request, reply) => {
    // Answered before the email is looked up: the answer takes the same work for every email.
    resets.add(request.body.email, request.log);
    return reply.code(202).send({ message: RESET_REQUESTED });
  });

  reset.route('PUT', '', {
    rule: 'write', operationId: 'resetPassword',
    summary: 'Set a new password with the token of a reset link; logs out every session of the user',
    body: ResetBody, response: { 200: ResetResponse },
  }, async (request) => {
    await resetPassword(services, request.body);
    return { success: true };
  });
};
