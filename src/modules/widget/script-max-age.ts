/**
 * How long browsers and shared caches keep an account's banner script before asking again (cheaply,
 * with If-None-Match). A saved change is served at once by this instance (and by the others through
 * Redis), so this is how long a visitor may still get the script from before the change: the
 * dashboard says it after a save, and docs/integrating.md says it.
 */
export const SCRIPT_MAX_AGE_S = 120;

/** The same for people: "within 2 minutes". */
export const SCRIPT_REACHES_VISITORS = `within ${SCRIPT_MAX_AGE_S / 60} minutes`;
