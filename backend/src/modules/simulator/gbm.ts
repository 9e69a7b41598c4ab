import { gaussian } from './prng';

const SECONDS_PER_YEAR = 365 * 24 * 3600;

/**
 * Geometric Brownian motion reference price: S(t+dt) = S(t)·exp((μ − σ²/2)dt + σ√dt·Z).
 * Only the simulator's quoting uses it; every public price still comes from trades.
 */
export class GbmPrice {
  constructor(
    public price: number,
    private readonly volatility: number,
    private readonly rand: () => number,
    private readonly drift = 0,
  ) {}

  step(seconds: number): number {
    const dt = seconds / SECONDS_PER_YEAR;
    const z = gaussian(this.rand);
    this.price *= Math.exp((this.drift - (this.volatility * this.volatility) / 2) * dt + this.volatility * Math.sqrt(dt) * z);
    return this.price;
  }
}
