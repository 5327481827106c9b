/**
 * No behaviour change, byte for byte: the seeded service's public responses (status, stable
 * headers, bodies) equal the committed golden file. After an intended change to a public
 * response, rewrite it with `bun run public-responses -- --write` and review the diff.
 */
import { expect, test } from "bun:test";
import { collectPublicResponses, firstDifference, readGolden } from "../../scripts/public-responses";

test("the public responses of the seeded service match test/golden/public-responses.json", async () => {
  const current = await collectPublicResponses();
  const golden = readGolden();
  expect(golden.length).toBeGreaterThan(100);
  const difference = firstDifference(golden, current);
  if (difference) console.error(`first differing response: ${difference}`);
  expect(difference).toBeNull();
}, 120_000);
