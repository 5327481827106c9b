/**
 * pump.fun's three programs as the local chain hosts them, at their real ids. What is emulated,
 * instruction by instruction, is tabled in packages/localnet/README.md.
 */
import type { NativeProgram } from "../runtime";
import { pumpProgram } from "./pump";
import { pumpAmmProgram } from "./pump-amm";
import { pumpFeesProgram } from "./pump-fees";

export function pumpPrograms(): NativeProgram[] {
  return [pumpProgram(), pumpAmmProgram(), pumpFeesProgram()];
}
