/**
 * Fixed-window rate limits per client IP, in memory (DESIGN §5). Every answer of a limited route
 * carries x-ratelimit-limit, -remaining and -reset (unix seconds); a 429 adds retry-after.
 * The number of tracked buckets is bounded: expired windows are swept, and past the cap the
 * oldest buckets are dropped (which can only favour a client, never block one wrongly).
 */
export interface LimitRule {
  /** bucket name, usually the route */
  name: string;
  limit: number;
  windowMs: number;
}

export interface LimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

interface Bucket {
  windowStartMs: number;
  count: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweepMs = 0;

  constructor(private readonly options: { maxBuckets?: number; now?: () => number } = {}) {}

  hit(rule: LimitRule, ip: string): LimitDecision {
    const now = this.options.now?.() ?? Date.now();
    this.sweep(now, rule.windowMs);
    const windowStartMs = Math.floor(now / rule.windowMs) * rule.windowMs;
    const key = `${rule.name}\u0000${ip}`;
    let bucket = this.buckets.get(key);
    if (!bucket || bucket.windowStartMs !== windowStartMs) {
      bucket = { windowStartMs, count: 0 };
      this.buckets.delete(key);
      this.buckets.set(key, bucket);
    }
    bucket.count += 1;
    const resetSec = Math.ceil((windowStartMs + rule.windowMs) / 1000);
    const allowed = bucket.count <= rule.limit;
    const headers: Record<string, string> = {
      "x-ratelimit-limit": String(rule.limit),
      "x-ratelimit-remaining": String(Math.max(0, rule.limit - bucket.count)),
      "x-ratelimit-reset": String(resetSec),
    };
    if (!allowed) headers["retry-after"] = String(Math.max(1, resetSec - Math.floor(now / 1000)));
    return { allowed, headers };
  }

  private sweep(now: number, windowMs: number): void {
    const max = this.options.maxBuckets ?? 100_000;
    if (now - this.lastSweepMs > windowMs || this.buckets.size > max) {
      this.lastSweepMs = now;
      for (const [key, bucket] of this.buckets) {
        if (bucket.windowStartMs + 3_600_000 < now) this.buckets.delete(key);
      }
      // Map iteration is insertion order: the first keys are the least recently reset.
      for (const key of this.buckets.keys()) {
        if (this.buckets.size <= max) break;
        this.buckets.delete(key);
      }
    }
  }
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** SPEC's Limits table: method, path pattern, rule. */
export const SPEC_LIMITS: { method: string; pattern: RegExp; rule: LimitRule }[] = [
  { method: "GET", pattern: /^\/api\/tokens\/?$/, rule: { name: "tokens", limit: 120, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/tokens\/[^/]+\/?$/, rule: { name: "token", limit: 60, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/idp\/[^/]+\/?$/, rule: { name: "idp", limit: 120, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/stats\/?$/, rule: { name: "stats", limit: 120, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/ledger\/?$/, rule: { name: "ledger", limit: 120, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/proof\/?$/, rule: { name: "proof", limit: 60, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/token-images\/[^/]+\/?$/, rule: { name: "token-images", limit: 600, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/launch\/config\/?$/, rule: { name: "launch-config", limit: 60, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/me\/?$/, rule: { name: "me", limit: 120, windowMs: MINUTE } },
  { method: "POST", pattern: /^\/api\/claim\/?$/, rule: { name: "claim", limit: 10, windowMs: MINUTE } },
  { method: "POST", pattern: /^\/api\/routing\/?$/, rule: { name: "routing", limit: 20, windowMs: MINUTE } },
  { method: "POST", pattern: /^\/api\/launch\/intent\/?$/, rule: { name: "launch-intent", limit: 10, windowMs: MINUTE } },
  { method: "POST", pattern: /^\/api\/launch\/metadata\/?$/, rule: { name: "launch-metadata", limit: 20, windowMs: HOUR } },
  { method: "POST", pattern: /^\/api\/launch\/confirm\/?$/, rule: { name: "launch-confirm", limit: 60, windowMs: MINUTE } },
  { method: "POST", pattern: /^\/api\/rpc\/?$/, rule: { name: "rpc", limit: 120, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/proof\/liabilities\/?$/, rule: { name: "proof-liabilities", limit: 60, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/me\/proof\/?$/, rule: { name: "me-proof", limit: 60, windowMs: MINUTE } },
];

export function limitRuleFor(method: string, path: string): LimitRule | null {
  for (const entry of SPEC_LIMITS) {
    if (entry.method === method && entry.pattern.test(path)) return entry.rule;
  }
  return null;
}
