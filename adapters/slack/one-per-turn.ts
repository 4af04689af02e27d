/**
 * Waits for a turn of the event loop of its own: however many callers wait at once, one is let go
 * per turn, in order, and the event loop reads the sockets between any two. `setImmediate` alone
 * lets every waiter of a turn go together, so five hundred answers that became ready at once
 * would all be rendered and sent before the next request is even read.
 */
export function onePerTurn(): () => Promise<void> {
  const waiting: (() => void)[] = [];
  const releaseNext = () => {
    waiting.shift()?.();
    if (waiting.length) setImmediate(releaseNext);
  };
  return () =>
    new Promise<void>((resolve) => {
      if (waiting.push(resolve) === 1) setImmediate(releaseNext);
    });
}
