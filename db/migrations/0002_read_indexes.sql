DROP INDEX `ledger_entries_account`;--> statement-breakpoint
CREATE INDEX `ledger_entries_account` ON `ledger_entries` (`account_id`,`token_id`,`amount`,`posting_id`);--> statement-breakpoint
CREATE INDEX `burn_orders_buy` ON `burn_orders` (`buy_id`);