/**
 * `GET /api/me/export.csv`: every credit (per token and sweep), payout and burn order of one
 * account as RFC 4180 CSV, oldest first. Rows are read from one statement on a read-only
 * connection of their own, a chunk at a time as the client reads, so 100,000 rows cost the memory
 * of one chunk and the file is one consistent snapshot of the books (WAL readers see the moment
 * their read began) without holding the service's own connection.
 */
import { Database } from "bun:sqlite";
import type { Db } from "../../db/client";
import { ownStatement } from "../../db/statement";
import { solDecimal } from "../lib/sol-text";

export const CSV_HEADER = ["at", "type", "mint", "symbol", "lamports", "status", "signature", "wallet", "sol"] as const;
const ROWS_PER_CHUNK = 500;
/** Exact SOL for a lamport amount (the `sol` column). */
export { solDecimal };

/** RFC 4180 quoting; a text cell a spreadsheet would run as a formula is made inert with a leading quote. */
export function csvCell(value: string, text = false): string {
  const safe = text && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

interface ExportRow {
  atMs: bigint;
  type: "credit" | "payout" | "burn";
  mint: string | null;
  symbol: string | null;
  lamports: bigint;
  status: string;
  signature: string | null;
  wallet: string | null;
}

/**
 * Credits are the sweep entries of the user's account plus those of every handle whose first pin
 * moved its credits to this user (the pin posting moves exactly what those sweeps credited, so the
 * rows sum to the account's `creditedLamports`). Payouts are every payout row: the ones `failed`
 * or `replaced` carry no money (the replacement owes it). Burns are the user's burn orders, and
 * burn refunds what a buy did not spend of them (burns less refunds is `burnedLamports`).
 */
const EXPORT_SQL = `
WITH me AS (SELECT id FROM ledger_accounts WHERE kind = 'user' AND ref = ?1),
pinned AS (
  SELECT DISTINCT e.handle FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id
   WHERE p.kind = 'pin' AND e.amount > 0 AND e.account_id = (SELECT id FROM me)),
credit_accounts AS (
  SELECT id FROM me
  UNION SELECT a.id FROM ledger_accounts a WHERE a.kind = 'handle' AND a.ref IN (SELECT handle FROM pinned))
SELECT p.at_ms AS atMs, 'credit' AS type, t.mint AS mint, t.symbol AS symbol, e.amount AS lamports,
       'confirmed' AS status, s.signature AS signature, NULL AS wallet, 0 AS ord, e.id AS rid
  FROM ledger_entries e
  JOIN ledger_postings p ON p.id = e.posting_id
  LEFT JOIN sweeps s ON s.id = CAST(substr(p.command_key, 7) AS INTEGER)
  LEFT JOIN tokens t ON t.id = e.token_id
 WHERE e.account_id IN (SELECT id FROM credit_accounts) AND p.kind = 'sweep' AND e.amount > 0
UNION ALL
SELECT created_at_ms, 'payout', NULL, NULL, lamports, status, signature, wallet, 1, id
  FROM payouts WHERE idp_user_id = ?1
UNION ALL
SELECT o.created_at_ms, 'burn', o.mint, t.symbol, o.lamports, o.status, COALESCE(b.burn_signature, b.signature), NULL, 2, o.id
  FROM burn_orders o
  LEFT JOIN burn_buys b ON b.id = o.buy_id
  LEFT JOIN tokens t ON t.mint = o.mint
 WHERE o.source = 'recipient' AND o.idp_user_id = ?1
UNION ALL
SELECT p.at_ms, 'burn_refund', b.mint, t.symbol, e.amount, 'confirmed', COALESCE(b.burn_signature, b.signature), NULL, 3, e.id
  FROM ledger_entries e
  JOIN ledger_postings p ON p.id = e.posting_id
  LEFT JOIN burn_buys b ON b.id = CAST(substr(p.command_key, 13) AS INTEGER)
  LEFT JOIN tokens t ON t.mint = b.mint
 WHERE e.account_id = (SELECT id FROM me) AND p.kind = 'burn_refund' AND e.amount > 0
ORDER BY atMs, ord, rid`;

function line(cells: string[]): string {
  return `${cells.join(",")}\r\n`;
}

function rowLine(r: ExportRow): string {
  const lamports = BigInt(r.lamports);
  return line([
    new Date(Number(r.atMs)).toISOString(),
    r.type,
    r.mint ?? "",
    csvCell(r.symbol ?? "", true),
    lamports.toString(),
    csvCell(r.status),
    r.signature ?? "",
    r.wallet ?? "",
    solDecimal(lamports),
  ]);
}

/** The CSV as a byte stream; the read-only connection closes when the stream ends or is cancelled. */
export function exportCsvStream(db: Db, idpUserId: string): ReadableStream<Uint8Array> {
  const file = db.$client.filename;
  const own = file !== "" && file !== ":memory:";
  const client = own ? new Database(file, { readonly: true, safeIntegers: true, strict: true }) : db.$client;
  if (own) client.exec("PRAGMA busy_timeout = 5000");
  const statement = ownStatement<ExportRow, [idpUserId: string]>(client, EXPORT_SQL);
  const rows = statement.iterate(idpUserId);
  const encoder = new TextEncoder();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      rows.return?.();
      statement.finalize();
    } finally {
      if (own) client.close();
    }
  };
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      try {
        let text = "";
        if (!headerSent) {
          headerSent = true;
          text += line([...CSV_HEADER]);
        }
        for (let n = 0; n < ROWS_PER_CHUNK; n++) {
          const next = rows.next();
          if (next.done) {
            if (text) controller.enqueue(encoder.encode(text));
            close();
            controller.close();
            return;
          }
          text += rowLine(next.value);
        }
        controller.enqueue(encoder.encode(text));
      } catch (error) {
        close();
        controller.error(error);
      }
    },
    cancel() {
      close();
    },
  });
}
