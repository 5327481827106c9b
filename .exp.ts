import { openDatabase } from "./db/client";
import { listTokens, recipientsOf } from "./src/tokens/queries";
import { feedPage } from "./src/ledger/feed-queries";
import { accountRecord } from "./src/accounts/record";
const db = openDatabase("/work/main/data/bench/tokens-2000-seed-7/service.db");
const time = (name: string, n: number, f: () => any) => { f(); const a = performance.now(); for (let i = 0; i < n; i++) f(); console.log(name, ((performance.now() - a) / n).toFixed(3), "ms"); };
time("list new", 50, () => listTokens(db, { sort: "new", q: null, limit: 24, after: null }));
time("list mcap", 50, () => listTokens(db, { sort: "mcap", q: null, limit: 24, after: null }));
const ids = (db.$client.query("select id from tokens order by launched_at_ms desc limit 24").all() as any[]).map((r) => Number(r.id));
time("recipientsOf", 50, () => recipientsOf(db, ids));
time("feed", 50, () => feedPage(db, null, 50));
const h = (db.$client.query("select handle from handles where idp_user_id is not null limit 1").get() as any).handle;
time("account", 20, () => accountRecord(db, h));
for (const sql of [
 "EXPLAIN QUERY PLAN SELECT e.token_id AS tokenId, e.handle, SUM(e.amount) AS credited FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id WHERE e.token_id IN (SELECT value FROM json_each('[1,2]')) AND e.handle IS NOT NULL AND p.kind = 'sweep' GROUP BY e.token_id, e.handle",
 "EXPLAIN QUERY PLAN SELECT t.id FROM tokens t WHERE t.hidden = 0 AND t.market_cap_usd IS NOT NULL ORDER BY t.market_cap_usd DESC, t.mint DESC LIMIT 25",
]) console.log(db.$client.query(sql).all());
