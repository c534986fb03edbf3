// One circuit per peer, on cockatiel's circuit breaker: closed (calls go through), open after
// `threshold` consecutive failures (calls are skipped, so a dead peer stops costing every request its
// whole budget), half-open once `cooldownMs` has passed (one trial call; success closes, failure
// re-opens). Only failures that `countsAgainstPeer` are counted; any other error passes through
// uncounted (a 4xx says the peer is alive and refused this query).
//
// While the trial is in flight, other searches skip the peer (`circuit_open`) instead of queueing
// behind the trial as cockatiel would: a trial to a dead peer lasts the whole budget, and a search
// that waited for it would have no time left for its own call.
import {
  circuitBreaker,
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  handleWhen,
  IsolatedCircuitError,
  type CircuitBreakerPolicy,
} from 'cockatiel';

export type PeerCircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  threshold: number;
  cooldownMs: number;
  /** Which errors count as the peer failing. */
  countsAgainstPeer: (error: Error) => boolean;
}

/** The circuit of the peer is open (or its half-open trial is in flight): the call was not made. */
export class CircuitOpenError extends Error {
  override name = 'CircuitOpenError';
}

export class CircuitBreakers {
  private readonly circuits = new Map<string, CircuitBreakerPolicy>();

  constructor(private readonly options: CircuitBreakerOptions) {}

  /** Runs `call` through the circuit of `key`; CircuitOpenError when the circuit skips it. */
  async execute<T>(key: string, call: () => Promise<T>): Promise<T> {
    const circuit = this.circuitOf(key);
    if (circuit.state === CircuitState.HalfOpen || circuit.state === CircuitState.Isolated)
      throw new CircuitOpenError(`circuit of ${key} is ${this.state(key)}`);
    try {
      return await circuit.execute(call);
    } catch (error) {
      if (error instanceof BrokenCircuitError || error instanceof IsolatedCircuitError)
        throw new CircuitOpenError(`circuit of ${key} is open`, { cause: error });
      throw error;
    }
  }

  state(key: string): PeerCircuitState {
    const state = this.circuits.get(key)?.state ?? CircuitState.Closed;
    switch (state) {
      case CircuitState.Closed:
        return 'closed';
      case CircuitState.HalfOpen:
        return 'half-open';
      case CircuitState.Open:
      case CircuitState.Isolated:
        return 'open';
      default: {
        const unreachable: never = state;
        return unreachable;
      }
    }
  }

  private circuitOf(key: string): CircuitBreakerPolicy {
    let circuit = this.circuits.get(key);
    if (!circuit) {
      circuit = circuitBreaker(
        handleWhen((error) => this.options.countsAgainstPeer(error)),
        { halfOpenAfter: this.options.cooldownMs, breaker: new ConsecutiveBreaker(this.options.threshold) },
      );
      this.circuits.set(key, circuit);
    }
    return circuit;
  }
}
