/**
 * Generates the typed client's types from the document a running service serves:
 *
 *   npm run example:client -- http://localhost:3000
 *
 * writes examples/generated/api.d.ts (`paths`, `components`, `operations`) with openapi-typescript.
 * The same in one line without this script:
 *   npx openapi-typescript http://localhost:3000/api/openapi.json -o examples/generated/api.d.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";

const base = (process.argv[2] ?? "http://localhost:3000").replace(/\/$/, "");
const response = await fetch(`${base}/api/openapi.json`);
if (!response.ok) throw new Error(`GET ${base}/api/openapi.json answered ${response.status}`);
const document = await response.json();

const ast = await openapiTS(document, {
  // Types say what the service sends: a field it may add later is not an error (SPEC Versioning 2).
  additionalProperties: false,
  // `type: "integer"` with bounds stays `number`; money is a decimal string in the document already.
  alphabetize: false,
});
const out = join(import.meta.dir, "generated", "api.d.ts");
mkdirSync(join(import.meta.dir, "generated"), { recursive: true });
writeFileSync(
  out,
  `// Generated from ${base}/api/openapi.json by examples/generate.ts. Do not edit.\n${astToString(ast)}`,
);
process.stdout.write(`wrote ${out}\n`);
