DROP INDEX `handles_idp_user`;--> statement-breakpoint
CREATE INDEX `handles_idp_user` ON `handles` (`idp_user_id`,`handle`);