/**
 * The sweep's scheduled read pass at scale (issue 42): its page query finds the due tokens by
 * walking the token ids in a narrow index, not the token table, whose rows it reads only for the
 * tokens it returns. At 1M tokens with 1% due, the table walk read ~620 MB every run.
 */
import { expect, test } from "bun:test";
import { openDatabase } from "../../db/client";
import { DUE_TOKENS_PAGE_SQL, dueTokensAfter, noteActivity } from "../../src/tokens";
import { noteQuietReadings } from "../../src/tokens/reading-schedule";
import { recordFixtureLaunch } from "../helpers/launch";

const NOW_MS = Date.UTC(2026, 10, 1);
const MAX_INTERVAL_MS = 6 * 3_600_000;

test("the due-token page query walks the ids in an index, the schedule by its key", () => {
  const db = openDatabase(":memory:");
  const plan = (
    db.$client.query(`EXPLAIN QUERY PLAN ${DUE_TOKENS_PAGE_SQL}`).all(0, NOW_MS, 100) as { detail: string }[]
  ).map((r) => r.detail);
  expect(plan).toEqual([
    "SEARCH t USING INDEX tokens_ids (id>?)",
    "SEARCH s USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN",
  ]);
});

test("paged in small pages, the due tokens come back each once, in id order: active, never read, and none quiet", () => {
  const db = openDatabase(":memory:");
  const ids: number[] = [];
  db.$client
    .transaction(() => {
      for (let i = 1; i <= 300; i++)
        ids.push(
          recordFixtureLaunch(
            db,
            {
              mint: `Mint${String(i).padStart(8, "x")}`,
              creatorIndex: i,
              launchSignature: `L${i}`,
              launchedAtMs: NOW_MS - 3_600_000,
            },
            NOW_MS - 3_600_000,
          ).tokenId,
        );
    })
    .immediate();
  // Every 7th token traded just now, every 5th (not 7th) was never read; the rest read quiet.
  const active = ids.filter((id) => id % 7 === 0);
  const neverRead = ids.filter((id) => id % 7 !== 0 && id % 5 === 0);
  const quiet = ids.filter((id) => id % 7 !== 0 && id % 5 !== 0);
  db.$client
    .transaction(() => {
      noteQuietReadings(db, quiet, NOW_MS - 1_000, MAX_INTERVAL_MS);
      noteActivity(db, active, NOW_MS - 1_000);
    })
    .immediate();

  const read: number[] = [];
  let afterId = 0;
  for (let page = 0; page < 1_000; page++) {
    const rows = dueTokensAfter(db, afterId, NOW_MS, 7);
    if (rows.length === 0) break;
    expect(rows.length).toBeLessThanOrEqual(7);
    read.push(...rows.map((r) => Number(r.id)));
    afterId = Number(rows.at(-1)!.id);
  }
  expect(read).toEqual([...active, ...neverRead].sort((a, b) => a - b));
  expect(dueTokensAfter(db, 0, NOW_MS, 1_000, true)).toHaveLength(300);
});
