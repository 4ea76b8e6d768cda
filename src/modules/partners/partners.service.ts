/**
 * Partners are created by the operator (CLI: `partners create`); no route writes them. What other
 * modules use of them: finding the partner behind a token.
 */
export { findPartner, insertPartner } from './partners.repository.ts';
