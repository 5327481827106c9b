CREATE TABLE `ledger_account_figures` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`credited_lamports` integer NOT NULL,
	`paid_lamports` integer NOT NULL,
	`burned_lamports` integer NOT NULL,
	`pin_moved_lamports` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ledger_account_token_credits` (
	`account_id` integer NOT NULL,
	`token_id` integer NOT NULL,
	`credited_lamports` integer NOT NULL,
	PRIMARY KEY(`account_id`, `token_id`)
);
--> statement-breakpoint
-- Kept in the statement that writes the entry, for the accounts of people only.
CREATE TRIGGER ledger_entries_account_figures AFTER INSERT ON ledger_entries
BEGIN
  INSERT INTO ledger_account_figures (account_id, credited_lamports, paid_lamports, burned_lamports, pin_moved_lamports)
    SELECT NEW.account_id,
           CASE WHEN p.kind IN ('sweep', 'pin') AND NEW.amount > 0 THEN NEW.amount ELSE 0 END,
           CASE WHEN p.kind IN ('payout_reserve', 'payout_fail') THEN -NEW.amount ELSE 0 END,
           CASE WHEN p.kind = 'burn_order' THEN -NEW.amount ELSE 0 END,
           CASE WHEN p.kind = 'pin' THEN -NEW.amount ELSE 0 END
      FROM ledger_postings p JOIN ledger_accounts a ON a.id = NEW.account_id
     WHERE p.id = NEW.posting_id AND a.kind IN ('user', 'handle')
  ON CONFLICT (account_id) DO UPDATE SET
    credited_lamports = credited_lamports + excluded.credited_lamports,
    paid_lamports = paid_lamports + excluded.paid_lamports,
    burned_lamports = burned_lamports + excluded.burned_lamports,
    pin_moved_lamports = pin_moved_lamports + excluded.pin_moved_lamports;
  INSERT INTO ledger_account_token_credits (account_id, token_id, credited_lamports)
    SELECT NEW.account_id, NEW.token_id, NEW.amount
      FROM ledger_postings p JOIN ledger_accounts a ON a.id = NEW.account_id
     WHERE p.id = NEW.posting_id AND a.kind IN ('user', 'handle') AND p.kind IN ('sweep', 'pin')
       AND NEW.amount > 0 AND NEW.token_id IS NOT NULL
  ON CONFLICT (account_id, token_id) DO UPDATE SET credited_lamports = credited_lamports + excluded.credited_lamports;
END;
--> statement-breakpoint
-- The rows of every earlier entry: the same sums the account records used to compute per read.
INSERT INTO ledger_account_figures (account_id, credited_lamports, paid_lamports, burned_lamports, pin_moved_lamports)
  SELECT e.account_id,
         COALESCE(SUM(CASE WHEN p.kind IN ('sweep', 'pin') AND e.amount > 0 THEN e.amount END), 0),
         COALESCE(SUM(CASE WHEN p.kind IN ('payout_reserve', 'payout_fail') THEN -e.amount END), 0),
         COALESCE(SUM(CASE WHEN p.kind = 'burn_order' THEN -e.amount END), 0),
         COALESCE(SUM(CASE WHEN p.kind = 'pin' THEN -e.amount END), 0)
    FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id JOIN ledger_postings p ON p.id = e.posting_id
   WHERE a.kind IN ('user', 'handle')
   GROUP BY e.account_id;
--> statement-breakpoint
INSERT INTO ledger_account_token_credits (account_id, token_id, credited_lamports)
  SELECT e.account_id, e.token_id, SUM(e.amount)
    FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id JOIN ledger_postings p ON p.id = e.posting_id
   WHERE a.kind IN ('user', 'handle') AND p.kind IN ('sweep', 'pin') AND e.amount > 0 AND e.token_id IS NOT NULL
   GROUP BY e.account_id, e.token_id;
