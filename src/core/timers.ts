/**
 * The longest delay a Node timer keeps, 2^31-1 ms (about 24.8 days). A longer one fires
 * after 1 ms, with only a TimeoutOverflowWarning on stderr: a 25-day run timeout would
 * stop every run at once.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs `action` once `ms` have passed, however long that is: a delay beyond the timer
 * limit is waited out in steps of at most the limit. A negative or NaN delay runs it at
 * the next tick, as setTimeout does. Returns the cancel.
 */
export function afterDelay(ms: number, action: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = (left: number) => {
    timer = left > MAX_TIMER_MS ? setTimeout(() => arm(left - MAX_TIMER_MS), MAX_TIMER_MS) : setTimeout(action, Math.max(0, left) || 0);
  };
  arm(ms);
  return () => clearTimeout(timer);
}
