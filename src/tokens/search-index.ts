/**
 * The `q` substring index over token name and ticker (DESIGN §5): an FTS5 trigram table kept in
 * step with `tokens` by triggers. The same statements belong in a migration
 * (db/migrations/0002_tokens_search.sql); until that lands, `ensureTokensSearch` creates them once
 * and is a no-op afterwards, so the routes never fall back to a table scan for 3+ characters.
 */
import type { Db } from "../../db/client";

export const TOKENS_SEARCH_DDL = [
  `CREATE VIRTUAL TABLE tokens_search USING fts5(name, symbol, content='tokens', content_rowid='id', tokenize='trigram')`,
  `CREATE TRIGGER tokens_search_insert AFTER INSERT ON tokens BEGIN
     INSERT INTO tokens_search (rowid, name, symbol) VALUES (new.id, new.name, new.symbol);
   END`,
  `CREATE TRIGGER tokens_search_delete AFTER DELETE ON tokens BEGIN
     INSERT INTO tokens_search (tokens_search, rowid, name, symbol) VALUES ('delete', old.id, old.name, old.symbol);
   END`,
  `CREATE TRIGGER tokens_search_update AFTER UPDATE OF name, symbol ON tokens BEGIN
     INSERT INTO tokens_search (tokens_search, rowid, name, symbol) VALUES ('delete', old.id, old.name, old.symbol);
     INSERT INTO tokens_search (rowid, name, symbol) VALUES (new.id, new.name, new.symbol);
   END`,
  `INSERT INTO tokens_search (tokens_search) VALUES ('rebuild')`,
] as const;

export function ensureTokensSearch(db: Db): void {
  const c = db.$client;
  const exists = c.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tokens_search'").get();
  if (exists) return;
  c.transaction(() => {
    for (const statement of TOKENS_SEARCH_DDL) c.exec(statement);
  }).immediate();
}
