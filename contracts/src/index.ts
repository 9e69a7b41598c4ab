export type * from './socket-events';
export * from './integrity';
export * from './proof';
