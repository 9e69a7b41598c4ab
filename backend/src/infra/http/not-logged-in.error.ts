/** Thrown by the auth guards; answered as `{type:"999", code:401}` so old and new clients log out. */
export class NotLoggedInError extends Error {
  constructor() {
    super('not logged in');
  }
}
