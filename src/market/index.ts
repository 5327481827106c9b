export { DexScreenerMarket } from "./adapter";
export type { MarketData } from "./adapter";
export { refreshMarket } from "./job";
