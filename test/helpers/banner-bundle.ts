import { writeBanner } from '../../banner/build.ts';

/** Vitest global setup: the banner bundle the server serves, built from the current sources. */
export default async function setup(): Promise<void> {
  await writeBanner();
}
