export type * from './socket-events';
