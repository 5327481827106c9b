/**
 * Generates the typed clients' types from the documents a running service serves:
 *
 *   npm run example:client -- http://localhost:3000
 *
 * writes examples/generated/api.d.ts from `/api/openapi.json` (the public reads) and
 * examples/generated/operator.d.ts from `/api/openapi-operator.json` (cron, admin and webhook
 * routes), each with `paths`, `components` and `operations`, with openapi-typescript.
 * The same in one line each without this script:
 *   npx openapi-typescript http://localhost:3000/api/openapi.json -o examples/generated/api.d.ts
 *   npx openapi-typescript http://localhost:3000/api/openapi-operator.json -o examples/generated/operator.d.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { runAsCommand } from "./main";

const HERE = dirname(fileURLToPath(import.meta.url));
const DOCUMENTS = { "api.d.ts": "/api/openapi.json", "operator.d.ts": "/api/openapi-operator.json" };

async function generate(base: string): Promise<void> {
  mkdirSync(join(HERE, "generated"), { recursive: true });
  for (const [file, path] of Object.entries(DOCUMENTS)) {
    const response = await fetch(`${base}${path}`);
    if (!response.ok) throw new Error(`GET ${base}${path} answered ${response.status}`);
    const ast = await openapiTS(await response.json(), {
      // Types say what the service sends: a field it may add later is not an error (CHANGELOG.md, versioning).
      additionalProperties: false,
      // `type: "integer"` with bounds stays `number`; money is a decimal string in the document already.
      alphabetize: false,
    });
    const out = join(HERE, "generated", file);
    writeFileSync(out, `// Generated from ${base}${path} by examples/generate.ts. Do not edit.\n${astToString(ast)}`);
    process.stdout.write(`wrote ${out}\n`);
  }
}

runAsCommand(import.meta.url, () => generate((process.argv[2] ?? "http://localhost:3000").replace(/\/$/, "")));
