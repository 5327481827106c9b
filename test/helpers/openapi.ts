/**
 * Checks answers against the served OpenAPI document: the response schema of a path, method and
 * status, with its $refs resolved against the document's components (Ajv, JSON Schema 2020-12,
 * which OpenAPI 3.1 schemas are).
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { Json } from "./service";

export interface DocumentChecker {
  /** The operation of a documented path template, or undefined. */
  operation(template: string, method: string): Json;
  /** The document's template matching a concrete request path (`/api/tokens/abc` → `/api/tokens/{mint}`). */
  templateOf(path: string): string | null;
  /** Throws, naming the request, when `body` does not match the JSON schema of that answer. */
  assertBody(template: string, method: string, status: number, body: unknown, label?: string): void;
}

export function documentChecker(doc: Json): DocumentChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: "doc", components: doc.components }, "doc");
  const compiled = new Map<string, ValidateFunction>();
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    literal: template.replace(/\{[^}]+\}/g, "").length,
  }));
  // The most literal template wins: /api/proof/history before /api/proof/{x}, were there one.
  templates.sort((a, b) => b.literal - a.literal);
  const rewrite = (schema: Json): Json =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
  return {
    operation: (template, method) => doc.paths[template]?.[method.toLowerCase()],
    templateOf(path) {
      const bare = path.replace(/\?.*$/, "");
      return templates.find((t) => t.pattern.test(bare))?.template ?? null;
    },
    assertBody(template, method, status, body, label = `${method} ${template}`) {
      const response = doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(status)];
      if (!response) throw new Error(`${label}: the document has no ${status} answer for ${method} ${template}`);
      const schema = response.content?.["application/json"]?.schema;
      if (!schema) throw new Error(`${label}: the document has no JSON body for ${status} of ${template}`);
      const key = `${method} ${template} ${status}`;
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile(rewrite(schema));
        compiled.set(key, validate);
      }
      if (!validate(body)) throw new Error(`${label} (${status}): ${ajv.errorsText(validate.errors)}`);
    },
  };
}
