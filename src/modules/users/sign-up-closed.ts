/**
 * The API's answer to a sign-up on a server that has it turned off, which the dashboard also shows
 * without asking when the page says so (one sentence, so the two cannot drift apart).
 */
export const SIGN_UP_CLOSED = 'Sign-up is disabled on this server';
