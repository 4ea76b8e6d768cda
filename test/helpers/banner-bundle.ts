import { writeBanner } from '../../banner/build.ts';

/** Vitest global setup: the banner bundle and the GPP file the server serves, built from the current sources. */
export default async function setup(): Promise<void> {
  await writeBanner();
}
