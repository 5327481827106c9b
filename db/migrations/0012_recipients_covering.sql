CREATE INDEX `handles_recipient` ON `handles` (`handle`,`name`,`avatar_url`,`idp_user_id`);--> statement-breakpoint
CREATE INDEX `identities_recipient` ON `identities` (`idp_user_id`,`first_sign_in_at_ms`,`routing`,`declined`);--> statement-breakpoint
CREATE INDEX `ledger_recipient_credits_listed` ON `ledger_recipient_credits` (`token_id`,`handle`,`credited_lamports`);--> statement-breakpoint
CREATE INDEX `token_recipients_listed` ON `token_recipients` (`token_id`,`position`,`handle`,`display_handle`,`bps`);