/**
 * JSON with bigint written as bare numbers. Solana's RPC sends u64 values (lamports, slots,
 * token amounts) as JSON numbers; keeping them bigint until the last byte means nothing in the
 * node rounds money through a double.
 */
export function stringifyJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : stringifyJson(v))).join(",")}]`;
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined) continue;
        parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
      }
      return `{${parts.join(",")}}`;
    }
    default:
      return "null";
  }
}
