/** Vault readings, bonded/migrated state, bought amounts and the live creator fee, as the pump adapter reads them. */
import { describe, expect, test } from "bun:test";
import { GLOBAL_SIZE } from "@pump-fun/pump-sdk";
import { ACCOUNT_SIZE, AccountLayout, NATIVE_MINT, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { Keypair, PublicKey, SystemProgram } from "@solana/web3.js";
import type { AccountSnapshot } from "../../src/chain/ports";
import { createPumpLaunchProgram } from "../../src/chain/pump";
import { PUMP_AMM_PROGRAM_ID, PUMP_PROGRAM_ID, pumpPdas } from "../../src/chain/pump/layout";
import {
  PUMP_IDL,
  bondingCurveBytes,
  confirmedTx,
  curveEventIx,
  idlAccountDisc,
  mapReader,
  poolBytes,
} from "./support/fixtures";

const sys = (lamports: bigint): AccountSnapshot => ({
  lamports,
  owner: SystemProgram.programId.toBase58(),
  executable: false,
  data: new Uint8Array(),
});
function wsolAccount(owner: PublicKey, amount: bigint): AccountSnapshot {
  const b = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint: NATIVE_MINT,
      owner,
      amount,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: 1,
      isNativeOption: 1,
      isNative: 2_039_280n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    b,
  );
  return {
    lamports: 2_039_280n + amount,
    owner: TOKEN_PROGRAM_ID.toBase58(),
    executable: false,
    data: new Uint8Array(b),
  };
}

describe("readVaults", () => {
  test("curve vault above rent, pool vault as WSOL amount (not lamports), creator balance, bonded flag; one batched read", async () => {
    const tokens = Array.from({ length: 4 }, () => ({
      mint: Keypair.generate().publicKey,
      creator: Keypair.generate().publicKey,
    }));
    const [onCurve, complete, migrated, unknown] = tokens as [
      (typeof tokens)[0],
      (typeof tokens)[0],
      (typeof tokens)[0],
      (typeof tokens)[0],
    ];
    const accounts = new Map<string, AccountSnapshot>([
      [pumpPdas.creatorVault(onCurve.creator).toBase58(), sys(890_880n + 1_234_567n)],
      [onCurve.creator.toBase58(), sys(2_000_000n)],
      [
        pumpPdas.bondingCurve(onCurve.mint).toBase58(),
        {
          ...sys(1n),
          owner: PUMP_PROGRAM_ID.toBase58(),
          data: bondingCurveBytes({ complete: false, creator: onCurve.creator }).subarray(0, 81),
        },
      ],
      [
        pumpPdas.bondingCurve(complete.mint).toBase58(),
        {
          ...sys(1n),
          owner: PUMP_PROGRAM_ID.toBase58(),
          data: bondingCurveBytes({ complete: true, creator: complete.creator }),
        },
      ],
      [pumpPdas.creatorVault(complete.creator).toBase58(), sys(500_000n)], // below rent: nothing unswept
      [
        pumpPdas.bondingCurve(migrated.mint).toBase58(),
        {
          ...sys(1n),
          owner: PUMP_PROGRAM_ID.toBase58(),
          data: bondingCurveBytes({ complete: true, creator: migrated.creator }),
        },
      ],
      [
        pumpPdas.canonicalPool(migrated.mint).toBase58(),
        {
          ...sys(1n),
          owner: PUMP_AMM_PROGRAM_ID.toBase58(),
          // a real Pool layout: the reading refuses layouts it does not know (program-changed)
          data: poolBytes(migrated.mint, migrated.creator, PublicKey.unique(), PublicKey.unique()),
        },
      ],
      [
        pumpPdas.ammCreatorVaultWsolAta(migrated.creator).toBase58(),
        wsolAccount(pumpPdas.ammCreatorVaultAuthority(migrated.creator), 7_654_321n),
      ],
    ]);
    const reader = mapReader(accounts);
    const launch = createPumpLaunchProgram(reader);
    const readings = await launch.readVaults(
      tokens.map((t) => ({ mint: t.mint.toBase58(), creator: t.creator.toBase58() })),
    );
    expect(readings).toEqual([
      {
        mint: onCurve.mint.toBase58(),
        curveLamports: 1_234_567n,
        poolLamports: 0n,
        creatorLamports: 2_000_000n,
        bonded: false,
        feeSharing: null,
      },
      {
        mint: complete.mint.toBase58(),
        curveLamports: 0n,
        poolLamports: 0n,
        creatorLamports: 0n,
        bonded: true,
        feeSharing: null,
      },
      {
        mint: migrated.mint.toBase58(),
        curveLamports: 0n,
        poolLamports: 7_654_321n,
        creatorLamports: 0n,
        bonded: true,
        feeSharing: null,
      },
      {
        mint: unknown.mint.toBase58(),
        curveLamports: 0n,
        poolLamports: 0n,
        creatorLamports: 0n,
        bonded: false,
        feeSharing: null,
      },
    ]);
    expect(reader.calls.length).toBe(1);
    // the creator as the chain has it now (it can change after create)
    expect((await launch.readBondingCurve(onCurve.mint.toBase58()))!.creator).toBe(onCurve.creator.toBase58());
    expect(await launch.readBondingCurve(unknown.mint.toBase58())).toBeNull();
  });

  test("vaultAddresses are the PDAs of PUMP.md §3 (hyphen under Pump, underscore under the AMM)", () => {
    const creator = Keypair.generate().publicKey;
    const mint = Keypair.generate().publicKey;
    const v = createPumpLaunchProgram(mapReader(new Map())).vaultAddresses({
      mint: mint.toBase58(),
      creator: creator.toBase58(),
    });
    expect(v.curveVault).toBe(
      PublicKey.findProgramAddressSync(
        [Buffer.from("creator-vault"), creator.toBuffer()],
        PUMP_PROGRAM_ID,
      )[0].toBase58(),
    );
    const authority = PublicKey.findProgramAddressSync(
      [Buffer.from("creator_vault"), creator.toBuffer()],
      PUMP_AMM_PROGRAM_ID,
    )[0];
    const ata = PublicKey.findProgramAddressSync(
      [authority.toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), NATIVE_MINT.toBuffer()],
      new PublicKey("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"),
    )[0];
    expect(v.poolVault).toBe(ata.toBase58());
    expect(v.bondingCurve).toBe(
      PublicKey.findProgramAddressSync([Buffer.from("bonding-curve"), mint.toBuffer()], PUMP_PROGRAM_ID)[0].toBase58(),
    );
  });
});

describe("decodeSweep edge cases", () => {
  test("a creator listed twice is reported once", () => {
    const creator = Keypair.generate().publicKey;
    const tx = confirmedTx({
      innerInstructions: [{ ...curveEventIx(creator, 1_000n), outerIndex: 0 }],
      balances: { [creator.toBase58()]: [0n, 0n] },
    });
    const effects = createPumpLaunchProgram(mapReader(new Map())).decodeSweep(tx, [
      creator.toBase58(),
      creator.toBase58(),
    ]);
    expect(effects).toEqual([
      { creator: creator.toBase58(), collectedLamports: 1_000n, movedToTreasuryLamports: 1_000n },
    ]);
  });
});

describe("decodeBoughtAmount", () => {
  test("post − pre of the owner's balance in that mint", () => {
    const mint = Keypair.generate().publicKey.toBase58();
    const owner = Keypair.generate().publicKey.toBase58();
    const other = Keypair.generate().publicKey.toBase58();
    const tx = confirmedTx({
      preTokenBalances: [{ accountIndex: 1, mint, owner, amount: 5n }],
      postTokenBalances: [
        { accountIndex: 1, mint, owner, amount: 1_000_005n },
        { accountIndex: 2, mint, owner: other, amount: 99n },
      ],
    });
    const launch = createPumpLaunchProgram(mapReader(new Map()));
    expect(launch.decodeBoughtAmount(tx, mint, owner)).toBe(1_000_000n);
    expect(() => launch.decodeBoughtAmount(confirmedTx({}), mint, owner)).toThrow();
  });
});

describe("creatorFeeBps", () => {
  test("read live from Global when no fee config exists", async () => {
    const g = Buffer.alloc(GLOBAL_SIZE);
    Buffer.from(idlAccountDisc(PUMP_IDL, "Global")).copy(g);
    g.writeBigUInt64LE(95n, 105);
    g.writeBigUInt64LE(30n, 154);
    const launch = createPumpLaunchProgram(
      mapReader(
        new Map([
          [
            pumpPdas.global().toBase58(),
            { lamports: 1n, owner: PUMP_PROGRAM_ID.toBase58(), executable: false, data: new Uint8Array(g) },
          ],
        ]),
      ),
    );
    expect(await launch.creatorFeeBps()).toBe(30);
  });
});
