/**
 * The IDLs pump's SDK packages ship, as coders the emulated programs read and write with: the
 * instruction an account list and data decode to, accounts and events encoded by the IDL's own
 * layouts and discriminators. Names are the SDK's camelCase (Anchor's `Program` converts the IDL),
 * so decoded values are what the SDK's quote and fee math takes.
 */
import type { BorshCoder, Idl, Program } from "@coral-xyz/anchor";
import { Connection, PublicKey } from "@solana/web3.js";
import { getPumpAmmProgram, getPumpFeeProgram, getPumpProgram } from "@pump-fun/pump-sdk";
import { type InvokeContext, type NativeProgram, ProgramError } from "./runtime";

/** Anchor's own error numbers (anchor-lang `ErrorCode`), which the programs answer with before their own. */
export const AnchorErrorCode = {
  InstructionMissing: 100,
  InstructionFallbackNotFound: 101,
  InstructionDidNotDeserialize: 102,
  ConstraintMut: 2000,
  ConstraintHasOne: 2001,
  ConstraintSigner: 2002,
  ConstraintRaw: 2003,
  ConstraintOwner: 2004,
  ConstraintSeeds: 2006,
  ConstraintExecutable: 2007,
  ConstraintAddress: 2012,
  ConstraintTokenMint: 2014,
  ConstraintTokenOwner: 2015,
  ConstraintAssociated: 2009,
  AccountDiscriminatorNotFound: 3001,
  AccountDiscriminatorMismatch: 3002,
  AccountDidNotDeserialize: 3003,
  AccountNotEnoughKeys: 3005,
  AccountNotMutable: 3006,
  AccountOwnedByWrongProgram: 3007,
  InvalidProgramId: 3008,
  InvalidProgramExecutable: 3009,
  AccountNotSigner: 3010,
  AccountNotSystemOwned: 3011,
  AccountNotInitialized: 3012,
  AccountNotProgramData: 3013,
  AccountNotAssociatedTokenAccount: 3014,
} as const;

export function anchorError(name: keyof typeof AnchorErrorCode, detail: string): ProgramError {
  return new ProgramError(AnchorErrorCode[name], name, detail);
}

type IdlLike = Idl & {
  instructions: { name: string; discriminator: number[]; accounts: unknown[] }[];
  accounts?: { name: string; discriminator: number[] }[];
  events?: { name: string; discriminator: number[] }[];
  errors?: { code: number; name: string; msg?: string }[];
};

/** A name as Anchor's `Program` keeps it: camelCase, first letter lower ("TradeEvent" → "tradeEvent"). */
function idlName(name: string): string {
  const camel = name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return camel.charAt(0).toLowerCase() + camel.slice(1);
}

/** One program's IDL as a coder: decode instructions, encode and decode accounts and events. */
export class IdlCodec {
  readonly idl: IdlLike;
  private readonly coder: BorshCoder;

  constructor(program: Program) {
    this.idl = program.idl as unknown as IdlLike;
    this.coder = program.coder as BorshCoder;
  }

  get programId(): PublicKey {
    return new PublicKey(this.idl.address);
  }

  /** The instruction `data` encodes, by its 8-byte discriminator; null for an unknown one. */
  decodeInstruction(data: Uint8Array): { name: string; args: Record<string, unknown> } | null {
    const decoded = this.coder.instruction.decode(Buffer.from(data));
    if (!decoded) return null;
    return { name: decoded.name, args: decoded.data as Record<string, unknown> };
  }

  /** The IDL's discriminator of instruction `name` (camelCase or snake_case). */
  instructionDiscriminator(name: string): Uint8Array {
    const ix = this.idl.instructions.find((i) => i.name === idlName(name));
    if (!ix) throw new Error(`no instruction ${name} in the ${this.idl.metadata?.name} IDL`);
    return Uint8Array.from(ix.discriminator);
  }

  /** Borsh of a named IDL type; Anchor's own `types.encode` writes into a fixed 1,000-byte buffer (Global, FeeConfig are larger). */
  private encodeType(name: string, value: unknown): Uint8Array {
    const layout = (
      this.coder.types as unknown as { typeLayouts: Map<string, { encode(v: unknown, b: Buffer): number }> }
    ).typeLayouts.get(name);
    if (!layout) throw new Error(`Unknown type: ${name}`);
    const buffer = Buffer.alloc(16_384);
    return Uint8Array.from(buffer.subarray(0, layout.encode(value, buffer)));
  }

  /** The account's discriminator and borsh body; null when `data` is not an account of that type. */
  decodeAccount<T>(name: string, data: Uint8Array): T | null {
    const disc = this.accountDiscriminator(name);
    if (data.length < 8 || !disc.every((b, i) => data[i] === b)) return null;
    try {
      return this.coder.types.decode(idlName(name), Buffer.from(data.subarray(8))) as T;
    } catch {
      return null;
    }
  }

  /** Discriminator and borsh body, zero-padded to `space` bytes when given (an account's allocation). */
  encodeAccount(name: string, value: unknown, space?: number): Uint8Array {
    const body = this.encodeType(idlName(name), value);
    const out = new Uint8Array(Math.max(space ?? 0, 8 + body.length));
    out.set(this.accountDiscriminator(name), 0);
    out.set(body, 8);
    return out;
  }

  accountDiscriminator(name: string): Uint8Array {
    const a = this.idl.accounts?.find((x) => x.name === idlName(name));
    if (!a) throw new Error(`no account ${name} in the IDL`);
    return Uint8Array.from(a.discriminator);
  }

  /** An event's discriminator and borsh body, as `emit!`/`emit_cpi!` write it. */
  encodeEvent(name: string, value: unknown): Uint8Array {
    const e = this.idl.events?.find((x) => x.name === idlName(name));
    if (!e) throw new Error(`no event ${name} in the IDL`);
    const body = this.encodeType(idlName(name), value);
    const out = new Uint8Array(8 + body.length);
    out.set(e.discriminator, 0);
    out.set(body, 8);
    return out;
  }

  /** The program's own error `name` as its IDL numbers it. */
  error(name: string, detail?: string): ProgramError {
    const e = this.idl.errors?.find((x) => x.name === idlName(name) || x.name === name);
    if (!e) throw new Error(`no error ${name} in the IDL`);
    return new ProgramError(e.code, e.name, detail ?? e.msg ?? e.name);
  }
}

/** The SDK's programs, offline: a Connection is only where Anchor's Program wants one, never called. */
const OFFLINE = new Connection("http://127.0.0.1:1");

let codecs: { pump: IdlCodec; pumpAmm: IdlCodec; pumpFees: IdlCodec } | null = null;

/** The three programs' coders, built once (Anchor builds its layouts eagerly). */
export function pumpCodecs(): { pump: IdlCodec; pumpAmm: IdlCodec; pumpFees: IdlCodec } {
  codecs ??= {
    pump: new IdlCodec(getPumpProgram(OFFLINE) as unknown as Program),
    pumpAmm: new IdlCodec(getPumpAmmProgram(OFFLINE) as unknown as Program),
    pumpFees: new IdlCodec(getPumpFeeProgram(OFFLINE) as unknown as Program),
  };
  return codecs;
}

/** One instruction's handler: the context and the instruction's arguments as the IDL decodes them. */
export type InstructionHandler = (ctx: InvokeContext, args: Record<string, unknown>) => void;

/**
 * An Anchor program emulated natively: dispatch by the IDL's discriminators to `handlers` (keyed by
 * the IDL's camelCase instruction name). An unknown discriminator is refused as Anchor refuses it
 * (InstructionFallbackNotFound, 101); one the IDL knows but the local chain does not emulate is
 * refused with the same code and a log line saying so.
 */
export function anchorProgram(
  name: string,
  codec: IdlCodec,
  handlers: Readonly<Record<string, InstructionHandler>>,
  genesisAccounts: NativeProgram["genesisAccounts"],
): NativeProgram {
  return {
    programId: codec.programId,
    name,
    genesisAccounts,
    process(ctx) {
      if (ctx.data.length < 8) throw anchorError("InstructionMissing", "8 byte instruction identifier not provided");
      let decoded: ReturnType<IdlCodec["decodeInstruction"]>;
      try {
        decoded = codec.decodeInstruction(ctx.data);
      } catch {
        throw anchorError("InstructionDidNotDeserialize", "The program could not deserialize the given instruction");
      }
      if (!decoded) throw anchorError("InstructionFallbackNotFound", "Fallback functions are not supported");
      ctx.log(`Instruction: ${decoded.name.charAt(0).toUpperCase()}${decoded.name.slice(1)}`);
      const handler = handlers[decoded.name];
      if (!handler) {
        ctx.log(`${decoded.name} is not emulated by the local chain`);
        throw anchorError("InstructionFallbackNotFound", `${decoded.name} is not emulated`);
      }
      handler(ctx, decoded.args);
    },
  };
}
