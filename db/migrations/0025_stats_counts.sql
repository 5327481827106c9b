CREATE TABLE `ledger_kind_totals` (
	`kind` text PRIMARY KEY NOT NULL,
	`balance_lamports` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `stats_claimed_accounts` (
	`idp_user_id` text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE `stats_counts` (
	`name` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `token_recipients_handle`;--> statement-breakpoint
CREATE INDEX `token_recipients_handle` ON `token_recipients` (`handle`,`token_id`,`bps`);--> statement-breakpoint
-- Kept counts (issue 67). Every figure `/api/stats` shows is kept in the statement that changes what
-- it counts, as the ledger's projections are (0009, 0010), so a stats read is a few row reads and
-- nothing walks the tables: summing every account per kind, counting distinct handles and walking
-- every pinned handle for the claimed accounts took 1.2-1.35 s at a million tokens.
-- The ledger's totals per account kind: each entry adds its amount to its account's kind.
INSERT INTO `ledger_kind_totals` (`kind`, `balance_lamports`)
  SELECT `kind`, SUM(`balance`) FROM `ledger_accounts` GROUP BY `kind`;
--> statement-breakpoint
CREATE TRIGGER ledger_accounts_kind_total AFTER INSERT ON ledger_accounts
BEGIN
  INSERT INTO ledger_kind_totals (kind, balance_lamports) VALUES (NEW.kind, NEW.balance)
    ON CONFLICT (kind) DO UPDATE SET balance_lamports = balance_lamports + NEW.balance;
END;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_kind_total AFTER INSERT ON ledger_entries
BEGIN
  UPDATE ledger_kind_totals SET balance_lamports = balance_lamports + NEW.amount
   WHERE kind = (SELECT kind FROM ledger_accounts WHERE id = NEW.account_id);
END;
--> statement-breakpoint
-- The public counts, from what the tables hold now.
INSERT INTO `stats_counts` (`name`, `count`) VALUES
  ('tokens', (SELECT COUNT(*) FROM `tokens`)),
  ('recipients', (SELECT COUNT(DISTINCT `handle`) FROM `token_recipients`));
--> statement-breakpoint
-- A claimed account: an identity that signed in, with a handle pinned to it that a token names.
INSERT INTO `stats_claimed_accounts` (`idp_user_id`)
  SELECT DISTINCT h.`idp_user_id` FROM `handles` h JOIN `identities` i ON i.`idp_user_id` = h.`idp_user_id`
   WHERE i.`first_sign_in_at_ms` IS NOT NULL AND EXISTS (SELECT 1 FROM `token_recipients` r WHERE r.`handle` = h.`handle`);
--> statement-breakpoint
INSERT INTO `stats_counts` (`name`, `count`) VALUES ('claimed_accounts', (SELECT COUNT(*) FROM `stats_claimed_accounts`));
--> statement-breakpoint
CREATE TRIGGER stats_tokens_insert AFTER INSERT ON tokens
BEGIN
  UPDATE stats_counts SET count = count + 1 WHERE name = 'tokens';
END;
--> statement-breakpoint
CREATE TRIGGER stats_tokens_delete AFTER DELETE ON tokens
BEGIN
  UPDATE stats_counts SET count = count - 1 WHERE name = 'tokens';
END;
--> statement-breakpoint
-- A handle counts once however many tokens name it: with its first row in, and out with its last.
CREATE TRIGGER stats_recipients_insert AFTER INSERT ON token_recipients
BEGIN
  UPDATE stats_counts SET count = count + 1 WHERE name = 'recipients'
   AND NOT EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = NEW.handle AND r.token_id <> NEW.token_id);
  INSERT INTO stats_claimed_accounts (idp_user_id) SELECT o.idp_user_id FROM handles o
   WHERE o.handle = NEW.handle AND o.idp_user_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM stats_claimed_accounts c WHERE c.idp_user_id = o.idp_user_id)
       AND EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = o.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = o.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle));
END;
--> statement-breakpoint
CREATE TRIGGER stats_recipients_delete AFTER DELETE ON token_recipients
BEGIN
  UPDATE stats_counts SET count = count - 1 WHERE name = 'recipients'
   AND NOT EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = OLD.handle);
  DELETE FROM stats_claimed_accounts WHERE idp_user_id IN (SELECT idp_user_id FROM handles WHERE handle = OLD.handle)
   AND NOT (EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = stats_claimed_accounts.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = stats_claimed_accounts.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle)));
END;
--> statement-breakpoint
CREATE TRIGGER stats_recipients_update AFTER UPDATE OF handle ON token_recipients
WHEN NEW.handle <> OLD.handle
BEGIN
  UPDATE stats_counts SET count = count + 1 WHERE name = 'recipients'
   AND NOT EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = NEW.handle AND r.token_id <> NEW.token_id);
  UPDATE stats_counts SET count = count - 1 WHERE name = 'recipients'
   AND NOT EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = OLD.handle);
  INSERT INTO stats_claimed_accounts (idp_user_id) SELECT o.idp_user_id FROM handles o
   WHERE o.handle = NEW.handle AND o.idp_user_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM stats_claimed_accounts c WHERE c.idp_user_id = o.idp_user_id)
       AND EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = o.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = o.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle));
  DELETE FROM stats_claimed_accounts WHERE idp_user_id IN (SELECT idp_user_id FROM handles WHERE handle = OLD.handle)
   AND NOT (EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = stats_claimed_accounts.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = stats_claimed_accounts.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle)));
END;
--> statement-breakpoint
-- The claimed set's size is the count; a change to what makes an identity claimed re-decides it.
CREATE TRIGGER stats_claimed_insert AFTER INSERT ON stats_claimed_accounts
BEGIN
  UPDATE stats_counts SET count = count + 1 WHERE name = 'claimed_accounts';
END;
--> statement-breakpoint
CREATE TRIGGER stats_claimed_delete AFTER DELETE ON stats_claimed_accounts
BEGIN
  UPDATE stats_counts SET count = count - 1 WHERE name = 'claimed_accounts';
END;
--> statement-breakpoint
CREATE TRIGGER stats_claimed_identity_insert AFTER INSERT ON identities
WHEN NEW.first_sign_in_at_ms IS NOT NULL
BEGIN
  INSERT INTO stats_claimed_accounts (idp_user_id) SELECT NEW.idp_user_id
   WHERE NEW.idp_user_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM stats_claimed_accounts c WHERE c.idp_user_id = NEW.idp_user_id)
       AND EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = NEW.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = NEW.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle));
END;
--> statement-breakpoint
CREATE TRIGGER stats_claimed_identity_update AFTER UPDATE OF idp_user_id, first_sign_in_at_ms ON identities
BEGIN
  INSERT INTO stats_claimed_accounts (idp_user_id) SELECT NEW.idp_user_id
   WHERE NEW.idp_user_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM stats_claimed_accounts c WHERE c.idp_user_id = NEW.idp_user_id)
       AND EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = NEW.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = NEW.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle));
  DELETE FROM stats_claimed_accounts WHERE idp_user_id = NEW.idp_user_id
   AND NOT (EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = stats_claimed_accounts.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = stats_claimed_accounts.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle)));
  DELETE FROM stats_claimed_accounts WHERE idp_user_id = OLD.idp_user_id
   AND NOT (EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = stats_claimed_accounts.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = stats_claimed_accounts.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle)));
END;
--> statement-breakpoint
CREATE TRIGGER stats_claimed_identity_delete AFTER DELETE ON identities
BEGIN
  DELETE FROM stats_claimed_accounts WHERE idp_user_id = OLD.idp_user_id
   AND NOT (EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = stats_claimed_accounts.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = stats_claimed_accounts.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle)));
END;
--> statement-breakpoint
CREATE TRIGGER stats_claimed_handle_insert AFTER INSERT ON handles
WHEN NEW.idp_user_id IS NOT NULL
BEGIN
  INSERT INTO stats_claimed_accounts (idp_user_id) SELECT NEW.idp_user_id
   WHERE NEW.idp_user_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM stats_claimed_accounts c WHERE c.idp_user_id = NEW.idp_user_id)
       AND EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = NEW.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = NEW.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle));
END;
--> statement-breakpoint
CREATE TRIGGER stats_claimed_handle_update AFTER UPDATE OF idp_user_id, handle ON handles
BEGIN
  INSERT INTO stats_claimed_accounts (idp_user_id) SELECT NEW.idp_user_id
   WHERE NEW.idp_user_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM stats_claimed_accounts c WHERE c.idp_user_id = NEW.idp_user_id)
       AND EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = NEW.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = NEW.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle));
  DELETE FROM stats_claimed_accounts WHERE idp_user_id = NEW.idp_user_id
   AND NOT (EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = stats_claimed_accounts.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = stats_claimed_accounts.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle)));
  DELETE FROM stats_claimed_accounts WHERE idp_user_id = OLD.idp_user_id
   AND NOT (EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = stats_claimed_accounts.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = stats_claimed_accounts.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle)));
END;
--> statement-breakpoint
CREATE TRIGGER stats_claimed_handle_delete AFTER DELETE ON handles
BEGIN
  DELETE FROM stats_claimed_accounts WHERE idp_user_id = OLD.idp_user_id
   AND NOT (EXISTS (SELECT 1 FROM identities i WHERE i.idp_user_id = stats_claimed_accounts.idp_user_id AND i.first_sign_in_at_ms IS NOT NULL)
       AND EXISTS (SELECT 1 FROM handles h WHERE h.idp_user_id = stats_claimed_accounts.idp_user_id
                     AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle)));
END;
