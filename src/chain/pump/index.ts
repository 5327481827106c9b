/** The `pump` launch-program adapter: see adapter.ts (behaviour) and layout.ts (wire formats). */
export {
  CREATOR_RESERVE_LAMPORTS,
  createPumpLaunchProgram,
  encodeBuyExactQuoteIn,
  encodeBuyExactSolIn,
} from "./adapter";
export { pumpLaunchOps } from "./launch-ops";
export * from "./layout";
