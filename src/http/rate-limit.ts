/**
 * Fixed-window rate limits per client IP, in memory (DESIGN §5). Every answer of a limited route
 * carries x-ratelimit-limit, -remaining and -reset (unix seconds); a 429 adds retry-after.
 * A hit costs O(1) whatever the number of buckets: expired buckets are swept by a timer the
 * service runs (`sweepExpired`), never on the request path, and past the cap the oldest bucket is
 * dropped (which can only favour a client, never block one wrongly).
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
  windowMs: number;
  count: number;
}

/** How often the service sweeps expired buckets. */
export const LIMITER_SWEEP_MS = 30_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly options: { maxBuckets?: number; now?: () => number } = {}) {}

  get size(): number {
    return this.buckets.size;
  }

  hit(rule: LimitRule, ip: string): LimitDecision {
    return this.decide(rule, ip, 1);
  }

  /** The decision a hit would get, without counting one (failed-attempt limits count failures only). */
  peek(rule: LimitRule, ip: string): LimitDecision {
    return this.decide(rule, ip, 0);
  }

  private decide(rule: LimitRule, ip: string, add: 0 | 1): LimitDecision {
    const now = this.options.now?.() ?? Date.now();
    const windowStartMs = Math.floor(now / rule.windowMs) * rule.windowMs;
    const key = `${rule.name}\u0000${ip}`;
    let bucket = this.buckets.get(key);
    if (!bucket || bucket.windowStartMs !== windowStartMs) {
      bucket = { windowStartMs, windowMs: rule.windowMs, count: 0 };
      if (add) {
        // Re-inserted at the end: Map order stays "least recently reset first" for the cap below.
        this.buckets.delete(key);
        this.buckets.set(key, bucket);
        this.enforceCap();
      }
    }
    bucket.count += add;
    const used = add ? bucket.count : bucket.count + 1;
    const resetSec = Math.ceil((windowStartMs + rule.windowMs) / 1000);
    const allowed = used <= rule.limit;
    const headers: Record<string, string> = {
      "x-ratelimit-limit": String(rule.limit),
      "x-ratelimit-remaining": String(Math.max(0, rule.limit - bucket.count)),
      "x-ratelimit-reset": String(resetSec),
    };
    if (!allowed) headers["retry-after"] = String(Math.max(1, resetSec - Math.floor(now / 1000)));
    return { allowed, headers };
  }

  private enforceCap(): void {
    const max = this.options.maxBuckets ?? 100_000;
    // At most one drop per new bucket: O(1), the oldest reset first.
    if (this.buckets.size > max) {
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
  }

  /** Drops every bucket whose window has ended; run on a timer, off the request path. */
  sweepExpired(): number {
    const now = this.options.now?.() ?? Date.now();
    let dropped = 0;
    for (const [key, bucket] of this.buckets) {
      if (bucket.windowStartMs + bucket.windowMs <= now) {
        this.buckets.delete(key);
        dropped++;
      }
    }
    return dropped;
  }
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** SPEC's Limits table, plus the limits of the hardening issue: method, path pattern, rule. */
export const SPEC_LIMITS: { method: string; pattern: RegExp; rule: LimitRule }[] = [
  { method: "GET", pattern: /^\/api\/tokens\/?$/, rule: { name: "tokens", limit: 120, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/tokens\/[^/]+\/?$/, rule: { name: "token", limit: 60, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/idp\/[^/]+\/?$/, rule: { name: "idp", limit: 120, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/stats\/?$/, rule: { name: "stats", limit: 120, windowMs: MINUTE } },
  { method: "GET", pattern: /^\/api\/ledger\/?$/, rule: { name: "ledger", limit: 120, windowMs: MINUTE } },
  // Opening a stream reads the feed (a replay's start); a browser reconnects every 3 s at most.
  {
    method: "GET",
    pattern: /^\/api\/ledger\/stream\/?$/,
    rule: { name: "ledger-stream", limit: 60, windowMs: MINUTE },
  },
  { method: "GET", pattern: /^\/api\/proof\/?$/, rule: { name: "proof", limit: 60, windowMs: MINUTE } },
  {
    method: "GET",
    pattern: /^\/api\/token-images\/[^/]+\/?$/,
    rule: { name: "token-images", limit: 600, windowMs: MINUTE },
  },
  {
    method: "GET",
    pattern: /^\/api\/launch\/config\/?$/,
    rule: { name: "launch-config", limit: 60, windowMs: MINUTE },
  },
  { method: "GET", pattern: /^\/api\/me\/?$/, rule: { name: "me", limit: 120, windowMs: MINUTE } },
  { method: "POST", pattern: /^\/api\/claim\/?$/, rule: { name: "claim", limit: 10, windowMs: MINUTE } },
  { method: "POST", pattern: /^\/api\/routing\/?$/, rule: { name: "routing", limit: 20, windowMs: MINUTE } },
  {
    method: "POST",
    pattern: /^\/api\/launch\/intent\/?$/,
    rule: { name: "launch-intent", limit: 10, windowMs: MINUTE },
  },
  {
    method: "POST",
    pattern: /^\/api\/launch\/metadata\/?$/,
    rule: { name: "launch-metadata", limit: 20, windowMs: HOUR },
  },
  {
    method: "POST",
    pattern: /^\/api\/launch\/confirm\/?$/,
    rule: { name: "launch-confirm", limit: 60, windowMs: MINUTE },
  },
  { method: "POST", pattern: /^\/api\/rpc\/?$/, rule: { name: "rpc", limit: 120, windowMs: MINUTE } },
  {
    method: "GET",
    pattern: /^\/api\/tokens\/[^/]+\/history\/?$/,
    rule: { name: "token-history", limit: 60, windowMs: MINUTE },
  },
  {
    method: "GET",
    pattern: /^\/api\/proof\/history\/?$/,
    rule: { name: "proof-history", limit: 60, windowMs: MINUTE },
  },
  {
    method: "GET",
    pattern: /^\/api\/idp\/[^/]+\/history\/?$/,
    rule: { name: "idp-history", limit: 120, windowMs: MINUTE },
  },
  { method: "GET", pattern: /^\/api\/me\/export\.csv$/, rule: { name: "export", limit: 10, windowMs: MINUTE } },
  {
    method: "GET",
    pattern: /^\/api\/auth\/idp\/start\/?$/,
    rule: { name: "signin-start", limit: 30, windowMs: MINUTE },
  },
  {
    method: "GET",
    pattern: /^\/api\/auth\/idp\/callback\/?$/,
    rule: { name: "signin-callback", limit: 30, windowMs: MINUTE },
  },
  {
    method: "GET",
    pattern: /^\/api\/launch\/objects\/[^/]+\/?$/,
    rule: { name: "launch-objects", limit: 600, windowMs: MINUTE },
  },
  // The pages of an account's lists count with the record (and /api/me) they continue.
  {
    method: "GET",
    pattern: /^\/api\/idp\/[^/]+\/(payouts|tokens)\/?$/,
    rule: { name: "idp", limit: 120, windowMs: MINUTE },
  },
  { method: "GET", pattern: /^\/api\/me\/(payouts|tokens)\/?$/, rule: { name: "me", limit: 120, windowMs: MINUTE } },
  {
    method: "GET",
    pattern: /^\/api\/proof\/liabilities\/?$/,
    rule: { name: "proof-liabilities", limit: 60, windowMs: MINUTE },
  },
  { method: "GET", pattern: /^\/api\/me\/proof\/?$/, rule: { name: "me-proof", limit: 60, windowMs: MINUTE } },
];

/**
 * Failed sign-ins of the /admin page per IP. Only failures count, and the right key is accepted
 * whatever the count: guesses from an address the operator shares must not lock the operator out.
 */
export const ADMIN_SIGN_IN_FAILURES: LimitRule = { name: "admin-sign-in", limit: 10, windowMs: MINUTE };

/** Failed secret attempts on the operator routes, per kind (admin, cron, metrics) and IP. */
export const OPERATOR_FAILURE_LIMIT = 30;
export function operatorFailureRule(kind: string): LimitRule {
  return { name: `failed-${kind}`, limit: OPERATOR_FAILURE_LIMIT, windowMs: MINUTE };
}

export function limitRuleFor(method: string, path: string): LimitRule | null {
  // HEAD runs the GET handler (Elysia answers it with the GET's headers), so it costs what a GET does.
  const asMethod = method === "HEAD" ? "GET" : method;
  for (const entry of SPEC_LIMITS) {
    if (entry.method === asMethod && entry.pattern.test(path)) return entry.rule;
  }
  return null;
}
