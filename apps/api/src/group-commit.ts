/**
 * Group commit: writes that share a key run one at a time, and the writes that arrive while one
 * is in flight go together as the next, in arrival order. A lone write goes at once; under load
 * each statement carries several requests, so the database and the driver pay per statement
 * once for them all. Hand-written because the queueing libraries batch by time or count, not by
 * "whatever came while the last one ran".
 */
export class GroupCommit<I, R> {
  private readonly queues = new Map<string, Pending<I, R>[]>();

  /**
   * @param write stores a group (all of one key) and returns one result per input, in order
   * @param weight how much of `maxWeight` an input takes (a group always takes at least one)
   */
  constructor(
    private readonly write: (key: string, inputs: I[]) => Promise<R[]>,
    private readonly weight: (input: I) => number,
    private readonly maxWeight: number,
  ) {}

  submit(key: string, input: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const queued = this.queues.get(key);
      if (queued) queued.push({ input, resolve, reject });
      else {
        const queue = [{ input, resolve, reject }];
        this.queues.set(key, queue);
        void this.drain(key, queue);
      }
    });
  }

  private async drain(key: string, queue: Pending<I, R>[]): Promise<void> {
    while (queue.length) {
      let n = 0;
      for (let total = 0; n < queue.length && (n === 0 || total + this.weight(queue[n]!.input) <= this.maxWeight); n++)
        total += this.weight(queue[n]!.input);
      const group = queue.splice(0, n);
      try {
        const results = await this.write(
          key,
          group.map((p) => p.input),
        );
        group.forEach((p, i) => p.resolve(results[i]!));
      } catch (e) {
        for (const p of group) p.reject(e);
      }
    }
    this.queues.delete(key);
  }
}

interface Pending<I, R> {
  input: I;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}
