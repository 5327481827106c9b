/**
 * pump (6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P), emulated: its instructions by feature file.
 */
import { anchorProgram, pumpCodecs } from "../anchor";
import type { NativeProgram } from "../runtime";
import { curveGenesis, curveHandlers } from "./pump-curve";
import { migrateHandlers } from "./pump-migrate";
import { sharingHandlers } from "./pump-sharing";
import { withPumpV3 } from "./pump-v3";

export function pumpProgram(): NativeProgram {
  // v3 (the `programLayout` fault rule): pump's announced next version's instructions, pump-v3.ts
  return withPumpV3(
    anchorProgram(
      "pump",
      pumpCodecs().pump,
      { ...curveHandlers, ...migrateHandlers, ...sharingHandlers },
      curveGenesis,
    ),
  );
}
