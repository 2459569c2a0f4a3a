/**
 * Password-guessing throttle: failed sign-ins are counted per user name and per client address; once
 * either count is used up, further attempts are refused (even with the right password) until the window ends.
 */
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { RateLimitedError } from '../model/errors.js';

export interface ThrottleLimits {
  /** Failed attempts allowed per user name in the window. */
  perUser: number;
  /** Failed attempts allowed per client address in the window. */
  perAddress: number;
  windowSeconds: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { perUser: 10, perAddress: 30, windowSeconds: 900 };

export class LoginThrottle {
  private readonly users: RateLimiterMemory;
  private readonly addresses: RateLimiterMemory;

  constructor(limits: ThrottleLimits = DEFAULT_THROTTLE) {
    this.users = new RateLimiterMemory({ keyPrefix: 'user', points: limits.perUser, duration: limits.windowSeconds });
    this.addresses = new RateLimiterMemory({ keyPrefix: 'addr', points: limits.perAddress, duration: limits.windowSeconds });
  }

  /**
   * Throws RateLimitedError when this user or address has used up its failed attempts. `username` null: a
   * sign-in that names no user yet (a passkey nobody has here), counted by its address alone.
   */
  async check(username: string | null, address: string): Promise<void> {
    for (const [limiter, key] of this.keys(username, address)) {
      const res = await limiter.get(key);
      if (res && res.remainingPoints <= 0) throw new RateLimitedError(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
    }
  }

  async failed(username: string | null, address: string): Promise<void> {
    // consume() rejects once the points are used up; the rejection itself is what check() reads later.
    await Promise.allSettled(this.keys(username, address).map(([limiter, key]) => limiter.consume(key)));
  }

  async succeeded(username: string): Promise<void> {
    await this.users.delete(username.toLowerCase());
  }

  private keys(username: string | null, address: string): [RateLimiterMemory, string][] {
    const byAddress: [RateLimiterMemory, string] = [this.addresses, address];
    return username === null ? [byAddress] : [[this.users, username.toLowerCase()], byAddress];
  }
}
