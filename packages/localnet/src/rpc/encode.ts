/**
 * Transactions and their metadata as agave's RPC writes them (getTransaction, getBlock): the
 * `json` and `jsonParsed` shapes (the latter with account keys as objects and the instructions of
 * the programs agave has parsers for parsed, parsed-instructions.ts; others partially decoded, as
 * agave writes them), or the wire bytes in base58/base64.
 */
import bs58 from "bs58";
import type { CompiledIx, TokenBalance, TxRecord } from "../node";
import { rpcError } from "../node";
import { parseInstruction } from "../parsed-instructions";
import { uiAmount } from "./context";

export type TxEncoding = "json" | "jsonParsed" | "base58" | "base64";

export function txEncodingOf(v: unknown): TxEncoding {
  const encoding = v ?? "json";
  if (encoding === "json" || encoding === "jsonParsed" || encoding === "base58" || encoding === "base64")
    return encoding;
  throw rpcError(
    -32602,
    `Invalid params: unknown variant \`${String(encoding)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\`.`,
  );
}

/** agave's answer when a v0 transaction meets a client that did not say it reads them. */
function unsupportedVersion(version: number): never {
  throw rpcError(
    -32015,
    `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0`,
  );
}

export function ixJson(ix: CompiledIx) {
  return {
    programIdIndex: ix.programIdIndex,
    accounts: ix.accounts,
    data: bs58.encode(ix.data),
    stackHeight: ix.stackHeight,
  };
}

function ixParsedJson(ix: CompiledIx, keys: string[]) {
  const programId = keys[ix.programIdIndex] ?? "";
  const parsed = parseInstruction(programId, ix.accounts, ix.data, keys, ix.stackHeight);
  if (parsed) return parsed;
  return {
    programId,
    accounts: ix.accounts.map((i) => keys[i] ?? ""),
    data: bs58.encode(ix.data),
    stackHeight: ix.stackHeight,
  };
}

function tokenBalanceJson(b: TokenBalance) {
  return {
    accountIndex: b.accountIndex,
    mint: b.mint,
    owner: b.owner,
    programId: b.programId,
    uiTokenAmount: uiAmount(b.amount, b.decimals),
  };
}

export function txJson(record: TxRecord, encoding: TxEncoding = "json") {
  if (encoding === "base64" || encoding === "base58") {
    const wire = record.tx.serialize();
    return encoding === "base64" ? [Buffer.from(wire).toString("base64"), "base64"] : [bs58.encode(wire), "base58"];
  }
  const m = record.tx.message;
  const lookups =
    record.tx.version === 0
      ? {
          addressTableLookups: m.addressTableLookups.map((l) => ({
            accountKey: l.accountKey.toBase58(),
            writableIndexes: l.writableIndexes,
            readonlyIndexes: l.readonlyIndexes,
          })),
        }
      : {};
  const signatures = record.tx.signatures.map((s) => bs58.encode(s));
  if (encoding === "jsonParsed") {
    const keys = record.accountKeys.map((k) => k.toBase58());
    const staticCount = m.staticAccountKeys.length;
    return {
      signatures,
      message: {
        accountKeys: keys.map((pubkey, i) => ({
          pubkey,
          signer: i < m.header.numRequiredSignatures,
          writable: record.writable[i] ?? false,
          source: i < staticCount ? "transaction" : "lookupTable",
        })),
        recentBlockhash: m.recentBlockhash,
        instructions: record.instructions.map((ix) => ixParsedJson(ix, keys)),
        ...lookups,
      },
    };
  }
  return {
    signatures,
    message: {
      accountKeys: m.staticAccountKeys.map((k) => k.toBase58()),
      header: m.header,
      recentBlockhash: m.recentBlockhash,
      instructions: record.instructions.map(ixJson),
      ...lookups,
    },
  };
}

export function metaJson(record: TxRecord, encoding: TxEncoding = "json") {
  const keys = encoding === "jsonParsed" ? record.accountKeys.map((k) => k.toBase58()) : null;
  return {
    err: record.err,
    status: record.err ? { Err: record.err } : { Ok: null },
    fee: record.feeLamports,
    preBalances: record.preBalances,
    postBalances: record.postBalances,
    innerInstructions: record.innerInstructions.map((i) => ({
      index: i.index,
      instructions: i.instructions.map((ix) => (keys ? ixParsedJson(ix, keys) : ixJson(ix))),
    })),
    logMessages: record.logs,
    preTokenBalances: record.preTokenBalances.map(tokenBalanceJson),
    postTokenBalances: record.postTokenBalances.map(tokenBalanceJson),
    rewards: [],
    // jsonParsed lists loaded keys in accountKeys (source "lookupTable") instead
    ...(keys
      ? {}
      : {
          loadedAddresses: {
            writable: record.loadedAddresses.writable.map((k) => k.toBase58()),
            readonly: record.loadedAddresses.readonly.map((k) => k.toBase58()),
          },
        }),
    computeUnitsConsumed: record.computeUnits,
    // agave leaves the field out when the transaction set no return data
    ...(record.returnData ? { returnData: returnDataJson(record.returnData) } : {}),
  };
}

/** Return data as agave's UiTransactionReturnData: the program and `[base64, "base64"]`. */
export function returnDataJson(r: { programId: { toBase58(): string }; data: Uint8Array }) {
  return { programId: r.programId.toBase58(), data: [Buffer.from(r.data).toString("base64"), "base64"] };
}

/** A transaction in a block or getTransaction answer, version checked as agave checks it. */
export function versionOf(record: TxRecord, maxSupported: number | undefined): "legacy" | number | undefined {
  const version = record.tx.version === "legacy" ? "legacy" : record.tx.version;
  if (version !== "legacy" && (maxSupported === undefined || version > maxSupported)) unsupportedVersion(version);
  return maxSupported === undefined ? undefined : version;
}
