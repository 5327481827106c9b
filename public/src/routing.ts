/** A recipient's routing in words (its own module: the account pages need it without the charts). */
export function routingLabel(r: { routing: string | null; declined: boolean }): string {
  if (r.declined) return "Burn (declined)";
  switch (r.routing) {
    case "hold":
      return "Hold";
    case "autopay":
      return "Autopay";
    case "burn":
      return "Burn";
    default:
      return "Not chosen yet";
  }
}
