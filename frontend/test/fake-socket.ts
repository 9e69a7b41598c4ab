/**
 * A socket for screens that follow topics: handlers kept per event (`fire` delivers a message to
 * them), subscribe answers kept in `acks` for the test to give. Mock the app's socket with it:
 * `jest.mock('<…>/api/socket', () => ({ getSocket: () => jest.requireActual('<…>/test/fake-socket').fakeSocket }))`.
 */
type Handler = (m: unknown) => void;
const handlers = new Map<string, Set<Handler>>();
export const acks: Array<(answer: unknown) => void> = [];
/** Every emit but `subscribe`, in order (an ack, if any, for the test to call). */
export const emitted: Array<{ event: string; body: unknown; ack?: (answer: unknown) => void }> = [];
export const fakeSocket = {
  connected: true,
  recovered: false,
  on: (event: string, h: Handler) => void (handlers.get(event) ?? handlers.set(event, new Set()).get(event)!).add(h),
  off: (event: string, h: Handler) => void handlers.get(event)?.delete(h),
  emit: (event: string, body: unknown, ack?: (answer: unknown) => void) =>
    void (event === 'subscribe' ? ack && acks.push(ack) : emitted.push({ event, body, ack })),
};
/** Delivers `m` to the socket's `event` handlers (a push, or `connect` after a reconnect). */
export const fire = (event: string, m?: unknown) => handlers.get(event)?.forEach((h) => h(m));
/** Forgets every handler and answer (between tests). */
export function resetFakeSocket(): void {
  handlers.clear();
  acks.length = 0;
  emitted.length = 0;
}
