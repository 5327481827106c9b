/** Where the OpenAPI document and its docs page are served (the document is composed in src/openapi.ts). */
export const OPENAPI_PATH = "/api/openapi.json";
export const DOCS_PATH = "/api/docs";
