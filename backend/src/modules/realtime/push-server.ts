/**
 * The options of the one /socket.io server, shared by every gateway on it (market data, chat,
 * notices). Nest creates the server with the options of whichever gateway starts first, so they
 * must be the same everywhere (the market gateway alone asked for connection-state recovery, and
 * another gateway started first: it was off without anyone deciding so).
 *
 * No connection-state recovery, by decision: Socket.IO's in-memory session adapter keeps every
 * broadcast (each private order and balance push too) for the whole recovery window to replay it,
 * so its memory grows with the push rate: at a few thousand socket orders a second, millions of
 * packets. A client that reconnects subscribes again and gets each topic's snapshot, and the web
 * app reloads what its screens show (`resync`).
 */
export const PUSH_SERVER = {
  path: '/socket.io',
  cors: { origin: true },
  perMessageDeflate: false,
  // Engine.IO ends an upgrade of another path that nothing has answered within this: the plain order
  // socket (/api/coin/ws) answers after its token lookup, which a loaded database can hold past the
  // default second (its upgrades were dropped unanswered, neither 101 nor 401); other paths are
  // still ended, later.
  destroyUpgradeTimeout: 10_000,
};
