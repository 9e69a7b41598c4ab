/**
 * The owners of orders seen leaving the book (filled or cancelled), for late cancels: "closed"
 * answered at once, without a read. Order ids are sequential, so an order is kept in slot
 * `id % size` of two typed arrays: nothing is allocated per order (a Map of this size rehashed a
 * table of megabytes as it turned over), and an order is remembered until an order `size` ids
 * younger closes. A forgotten one is no error: the caller reads the order's row instead.
 */
export class ClosedOwners {
  private readonly ids: Float64Array;
  private readonly owners: Int32Array;

  constructor(private readonly size = 1 << 18) {
    this.ids = new Float64Array(size);
    this.owners = new Int32Array(size);
  }

  set(orderId: number, userId: number): void {
    const i = orderId % this.size;
    this.ids[i] = orderId;
    this.owners[i] = userId;
  }

  get(orderId: number): number | undefined {
    const i = orderId % this.size;
    return orderId > 0 && this.ids[i] === orderId ? this.owners[i] : undefined;
  }
}
