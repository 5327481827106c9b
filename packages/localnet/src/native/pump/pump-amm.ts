/**
 * pump_amm (pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA), emulated: create_pool (pump's migrate
 * calls it), buy, buy_exact_quote_in, sell, collect_coin_creator_fee,
 * transfer_creator_fees_to_pump; genesis as mainnet has it (pump-amm-genesis.ts).
 */
import { anchorProgram, pumpCodecs } from "../anchor";
import type { NativeProgram } from "../runtime";
import { creatorFeeHandlers } from "./pump-amm-creator";
import { ammGenesisAccounts, rentExempt } from "./pump-amm-genesis";
import { createPool } from "./pump-amm-pool";
import { swapHandlers } from "./pump-amm-swap";
import { ammSharingHandlers } from "./pump-fees-pool-creator";

export function pumpAmmProgram(): NativeProgram {
  return anchorProgram(
    "pump_amm",
    pumpCodecs().pumpAmm,
    { createPool, ...swapHandlers, ...creatorFeeHandlers, ...ammSharingHandlers },
    () => ammGenesisAccounts(rentExempt),
  );
}
