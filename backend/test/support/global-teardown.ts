/** Stops the containers global-setup started, if any. */
export default async function globalTeardown(): Promise<void> {
  const containers = (globalThis as { __containers?: Array<{ stop: () => Promise<unknown> }> }).__containers ?? [];
  await Promise.all(containers.map((c) => c.stop()));
}
