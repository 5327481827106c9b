ALTER TABLE `burn_buys` ADD `spent_lamports` integer;--> statement-breakpoint
ALTER TABLE `burn_buys` ADD `rent_lamports` integer;--> statement-breakpoint
-- A refund of a burn order's unspent part (the buy spent less than its budget) lowers the
-- account's burned figure as its order raised it.
DROP TRIGGER ledger_entries_account_figures;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_account_figures AFTER INSERT ON ledger_entries
BEGIN
  INSERT INTO ledger_account_figures (account_id, credited_lamports, paid_lamports, burned_lamports, pin_moved_lamports)
    SELECT NEW.account_id,
           CASE WHEN p.kind IN ('sweep', 'pin') AND NEW.amount > 0 THEN NEW.amount ELSE 0 END,
           CASE WHEN p.kind IN ('payout_reserve', 'payout_fail') THEN -NEW.amount ELSE 0 END,
           CASE WHEN p.kind IN ('burn_order', 'burn_refund') THEN -NEW.amount ELSE 0 END,
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
