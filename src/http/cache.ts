/** SPEC's Cache-Control values. Nothing derived from a session may be stored by a shared cache. */
export const CACHE = {
  publicRead: "public, max-age=0, s-maxage=10, stale-while-revalidate=30",
  ledger: "public, max-age=0, s-maxage=5, stale-while-revalidate=15",
  proof: "public, max-age=0, s-maxage=15, stale-while-revalidate=45",
  immutable: "public, max-age=31536000, immutable",
  private: "private, no-store",
  noStore: "no-store",
} as const;
