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
--> statement-breakpoint
-- Substring search over name and ticker (SPEC `q`) through a trigram index, not a table scan.
CREATE VIRTUAL TABLE tokens_search USING fts5(name, symbol, content='tokens', content_rowid='id', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER tokens_search_insert AFTER INSERT ON tokens
BEGIN INSERT INTO tokens_search (rowid, name, symbol) VALUES (NEW.id, NEW.name, NEW.symbol); END;
--> statement-breakpoint
CREATE TRIGGER tokens_search_update AFTER UPDATE OF name, symbol ON tokens
BEGIN
  INSERT INTO tokens_search (tokens_search, rowid, name, symbol) VALUES ('delete', OLD.id, OLD.name, OLD.symbol);
  INSERT INTO tokens_search (rowid, name, symbol) VALUES (NEW.id, NEW.name, NEW.symbol);
END;
--> statement-breakpoint
CREATE TRIGGER tokens_search_delete AFTER DELETE ON tokens
BEGIN INSERT INTO tokens_search (tokens_search, rowid, name, symbol) VALUES ('delete', OLD.id, OLD.name, OLD.symbol); END;
