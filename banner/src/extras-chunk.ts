/** The extras file (see extras.ts): its one IIFE leaves these in the global banner/build.ts names. */
import { fillDeclaration, showChoice } from './declaration.ts';
import { startEmbeds } from './embeds.ts';
import type { ExtrasHost } from './extras-host.ts';

export function start(host: ExtrasHost): void {
  startEmbeds(host);
  fillDeclaration(host);
}

export { showChoice };
