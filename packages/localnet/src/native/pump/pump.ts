/**
 * pump (6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P), emulated: its instructions by feature file.
 */
import { anchorProgram, pumpCodecs } from "../anchor";
import type { NativeProgram } from "../runtime";
import { curveGenesis, curveHandlers } from "./pump-curve";
import { migrateHandlers } from "./pump-migrate";
import { sharingHandlers } from "./pump-sharing";

export function pumpProgram(): NativeProgram {
  return anchorProgram(
    "pump",
    pumpCodecs().pump,
    { ...curveHandlers, ...migrateHandlers, ...sharingHandlers },
    curveGenesis,
  );
}
