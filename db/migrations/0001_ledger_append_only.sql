-- The ledger is append-only: a correction is a new posting, never an edit.
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
--> statement-breakpoint
CREATE TRIGGER ledger_postings_no_update BEFORE UPDATE ON ledger_postings
BEGIN SELECT RAISE(ABORT, 'ledger postings are append-only'); END;
--> statement-breakpoint
CREATE TRIGGER ledger_postings_no_delete BEFORE DELETE ON ledger_postings
BEGIN SELECT RAISE(ABORT, 'ledger postings are append-only'); END;
--> statement-breakpoint
-- A cached balance may only move together with a new entry on the same account.
CREATE TRIGGER ledger_accounts_no_delete BEFORE DELETE ON ledger_accounts
BEGIN SELECT RAISE(ABORT, 'ledger accounts are permanent'); END;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_sum AFTER INSERT ON ledger_entries
BEGIN UPDATE ledger_accounts SET entry_sum = entry_sum + NEW.amount WHERE id = NEW.account_id; END;
