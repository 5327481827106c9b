/**
 * pump's announced next version as a fault rule (`programLayout: "v3"`, pump-v3-idl.ts for the
 * sources): while the chain runs "v3", pump also answers `buy_v3`, `sell_v3`, `sweep_creator_fee`
 * and `sweep_protocol_fee`; every other instruction runs as today ("Old instructions still pay
 * fees per trade as before", SWEEP_FEES.md). Under "current" those discriminators are unknown to
 * the program, as they are to today's (101).
 */
import type { InvokeContext, NativeProgram } from "../runtime";
import { buyV3, sellV3, sweepCreatorFee, sweepProtocolFee } from "./pump-v3-curve";
import { V3_INSTRUCTIONS } from "./pump-v3-idl";

const HANDLERS: Record<(typeof V3_INSTRUCTIONS)[number]["name"], (ctx: InvokeContext) => void> = {
  buyV3,
  sellV3,
  sweepCreatorFee,
  sweepProtocolFee,
};

/** The v3 instruction `data` starts with, or null. */
function v3Instruction(data: Uint8Array): (typeof V3_INSTRUCTIONS)[number] | null {
  if (data.length < 8) return null;
  return V3_INSTRUCTIONS.find((ix) => ix.discriminator.every((b, i) => data[i] === b)) ?? null;
}

/** pump as it runs under the chain's program version. */
export function withPumpV3(current: NativeProgram): NativeProgram {
  return {
    ...current,
    process(ctx) {
      const ix = ctx.programVersion === "v3" ? v3Instruction(ctx.data) : null;
      if (!ix) return current.process(ctx);
      ctx.log(`Instruction: ${ix.name.charAt(0).toUpperCase()}${ix.name.slice(1)}`);
      HANDLERS[ix.name](ctx);
    },
  };
}
