CREATE TABLE `payout_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`payout_id` integer NOT NULL,
	`status` text NOT NULL,
	`signature` text,
	`handle` text NOT NULL,
	`replacement_id` integer
);
--> statement-breakpoint
CREATE INDEX `payout_events_payout` ON `payout_events` (`payout_id`,`id`);--> statement-breakpoint
-- A published event never reads differently: its row is neither edited nor removed.
CREATE TRIGGER payout_events_no_update BEFORE UPDATE ON payout_events
BEGIN SELECT RAISE(ABORT, 'payout events are append-only'); END;
--> statement-breakpoint
CREATE TRIGGER payout_events_no_delete BEFORE DELETE ON payout_events
BEGIN SELECT RAISE(ABORT, 'payout events are append-only'); END;
--> statement-breakpoint
-- Payout events published before this migration keep what they read at this moment, from now on.
INSERT INTO `payout_events` (`payout_id`, `status`, `signature`, `handle`)
SELECT p.`id`, p.`status`, p.`signature`, i.`handle` FROM `payouts` p JOIN `identities` i ON i.`idp_user_id` = p.`idp_user_id`
 WHERE EXISTS (SELECT 1 FROM `feed_events` f WHERE f.`type` = 'payout' AND f.`ref_id` = p.`id`)
 ORDER BY p.`id`;
