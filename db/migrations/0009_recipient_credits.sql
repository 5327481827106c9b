CREATE TABLE `ledger_recipient_credits` (
	`token_id` integer NOT NULL,
	`handle` text NOT NULL,
	`credited_lamports` integer NOT NULL,
	PRIMARY KEY(`token_id`, `handle`)
);
--> statement-breakpoint
-- Kept in the statement that writes the entry: a sweep credit to a named handle adds to its row.
CREATE TRIGGER ledger_entries_recipient_credits AFTER INSERT ON ledger_entries
WHEN NEW.handle IS NOT NULL AND NEW.token_id IS NOT NULL
BEGIN
  INSERT INTO ledger_recipient_credits (token_id, handle, credited_lamports)
    SELECT NEW.token_id, NEW.handle, NEW.amount FROM ledger_postings p WHERE p.id = NEW.posting_id AND p.kind = 'sweep'
  ON CONFLICT (token_id, handle) DO UPDATE SET credited_lamports = credited_lamports + excluded.credited_lamports;
END;
--> statement-breakpoint
-- The rows of every earlier credit: the same sums the reads used to compute per page.
INSERT INTO ledger_recipient_credits (token_id, handle, credited_lamports)
  SELECT e.token_id, e.handle, SUM(e.amount) FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id
   WHERE e.handle IS NOT NULL AND e.token_id IS NOT NULL AND p.kind = 'sweep'
   GROUP BY e.token_id, e.handle;
