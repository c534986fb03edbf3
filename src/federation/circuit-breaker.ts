// One circuit per peer: closed (calls go through), open after `threshold` consecutive failures
// (calls are skipped, so a dead peer stops costing every request its whole budget), half-open once
// `cooldownMs` has passed (exactly one trial call; success closes, failure re-opens).

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  threshold: number;
  cooldownMs: number;
  now?: () => number;
}

interface Circuit {
  failures: number;
  openedAt: number;
  state: CircuitState;
  trialInFlight: boolean;
}

export class CircuitBreakers {
  private readonly circuits = new Map<string, Circuit>();
  private readonly now: () => number;

  constructor(private readonly options: CircuitBreakerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Whether a call to `key` may go out now; in half-open state this claims the single trial. */
  tryAcquire(key: string): boolean {
    const c = this.circuits.get(key);
    if (!c || c.state === 'closed') return true;
    if (c.state === 'open') {
      if (this.now() - c.openedAt < this.options.cooldownMs) return false;
      c.state = 'half-open';
      c.trialInFlight = false;
    }
    if (c.trialInFlight) return false;
    c.trialInFlight = true;
    return true;
  }

  onSuccess(key: string): void {
    this.circuits.delete(key);
  }

  /** Returns true when this failure opened (or re-opened) the circuit. */
  onFailure(key: string): boolean {
    const c = this.circuits.get(key) ?? { failures: 0, openedAt: 0, state: 'closed' as CircuitState, trialInFlight: false };
    this.circuits.set(key, c);
    c.failures++;
    c.trialInFlight = false;
    if (c.state === 'half-open' || (c.state === 'closed' && c.failures >= this.options.threshold)) {
      c.state = 'open';
      c.openedAt = this.now();
      return true;
    }
    return false;
  }

  /** A call that ended without a verdict on the peer's health (e.g. it was never sent). */
  release(key: string): void {
    const c = this.circuits.get(key);
    if (c) c.trialInFlight = false;
  }

  state(key: string): CircuitState {
    const c = this.circuits.get(key);
    if (!c) return 'closed';
    if (c.state === 'open' && this.now() - c.openedAt >= this.options.cooldownMs) return 'half-open';
    return c.state;
  }
}
