/** How long Socket.IO keeps a dropped connection's rooms and missed messages for recovery. */
export const RECOVERY_MS = 120_000;

/**
 * The options of the one /socket.io server, shared by every gateway on it (market data, chat,
 * notices). Nest creates the server with the options of whichever gateway starts first, so they
 * must be the same everywhere: connection-state recovery was off while only one of them asked for it.
 */
export const PUSH_SERVER = {
  path: '/socket.io',
  cors: { origin: true },
  connectionStateRecovery: { maxDisconnectionDuration: RECOVERY_MS },
  perMessageDeflate: false,
};
