import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

/** Error codes docs/api.md says clients rely on: the OpenAPI lists them all. */
const STABLE_CODES = [
  "ERR_VALIDATION",
  "ERR_WEAK_PASSWORD",
  "ERR_UNAUTHENTICATED",
  "ERR_INVALID_CREDENTIALS",
  "ERR_PERMISSION_DENIED",
  "ERR_REGISTRATION_DISABLED",
  "ERR_NOT_FOUND",
  "ERR_FILE_NOT_FOUND",
  "ERR_DIRECTORY_NOT_FOUND",
  "ERR_CONFLICT",
  "ERR_PAYLOAD_TOO_LARGE",
  "ERR_RANGE_NOT_SATISFIABLE",
  "RATE_LIMIT_EXCEEDED",
  "ERR_INTERNAL",
  "ERR_UNAVAILABLE",
];

/** Every generated RPC document (test/rpc/gen.test.ts pins which there are). */
const RPC_DOCS = readdirSync("docs/rpc").map((n) => n.replace(".swagger.json", ""));

const PUBLIC = new Set([
  "get /health",
  "get /api/v1/health",
  "get /metrics",
  "post /api/v1/auth/login",
  "post /api/v1/auth/register",
  "post /api/v1/auth/refresh",
]);

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked loosely
type Doc = any;

describe("API descriptions", () => {
  let s: TestServer;
  let doc: Doc;
  beforeAll(async () => {
    s = await startServer();
    const r = await s.api("GET", "/swagger/doc.json");
    expect(r.status).toBe(200);
    doc = r.body;
  });
  afterAll(() => s.close());

  it("is OpenAPI 3.0 with both security schemes", () => {
    expect(doc.openapi).toMatch(/^3\.0\./);
    expect(doc.components.securitySchemes.BearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.ApiKeyAuth).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
    });
  });

  it("lists every error code of the contract", () => {
    const text = JSON.stringify(doc);
    const missing = STABLE_CODES.filter((code) => !text.includes(code));
    expect(missing).toEqual([]);
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(
      expect.arrayContaining(STABLE_CODES),
    );
  });

  it("describes every operation: a success answer, error answers, security unless public", () => {
    const problems: string[] = [];
    let operations = 0;
    for (const [path, item] of Object.entries<Doc>(doc.paths)) {
      for (const [method, op] of Object.entries<Doc>(item)) {
        operations++;
        const id = `${method} ${path}`;
        const statuses = Object.keys(op.responses ?? {});
        if (!statuses.some((st) => /^2\d\d$/.test(st))) problems.push(`${id}: no 2xx answer`);
        if (!PUBLIC.has(id) && !path.startsWith("/health") && path !== "/metrics") {
          if (!statuses.some((st) => /^4\d\d$/.test(st))) problems.push(`${id}: no error answer`);
          const names = (op.security ?? []).flatMap((r: object) => Object.keys(r));
          if (!names.includes("BearerAuth") || !names.includes("ApiKeyAuth"))
            problems.push(`${id}: no security`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(operations).toBeGreaterThan(5);
  });

  it("documents the settings routes", () => {
    expect(Object.keys(doc.paths["/api/v1/settings/user"])).toEqual(expect.arrayContaining(["get", "put"]));
    expect(Object.keys(doc.paths["/api/v1/settings/app"])).toEqual(expect.arrayContaining(["get", "put"]));
  });

  it("serves Swagger UI from this origin only, with a CSP that allows it", async () => {
    const page = await s.api("GET", "/swagger/index.html");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:/);
    expect(page.text).not.toMatch(/https?:\/\//);
    const refs = [...page.text.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs).toEqual(expect.arrayContaining(["swagger-ui-bundle.js", "swagger-ui.css"]));
    for (const ref of refs) {
      const r = await fetch(`${s.url}/swagger/${ref}`);
      expect(r.status, ref).toBe(200);
      expect((await r.arrayBuffer()).byteLength, ref).toBeGreaterThan(100);
    }
    const init = await s.api("GET", "/swagger/swagger-initializer.js");
    expect(init.text).toContain("/swagger/doc.json");
    expect((await s.api("GET", "/swagger")).status).toBe(200); // redirect followed
  });

  it("does not serve other files of the package or paths outside it", async () => {
    for (const path of ["/swagger/package.json", "/swagger/..%2Fpackage.json", "/swagger/rpc/nope.json"]) {
      const r = await s.api("GET", path);
      expect(r.status, path).toBe(404);
    }
  });

  it("serves one OpenAPI 2.0 document per RPC service, as checked in", async () => {
    for (const name of RPC_DOCS) {
      const r = await s.api("GET", `/swagger/rpc/${name}.json`);
      expect(r.status, name).toBe(200);
      const onDisk = JSON.parse(readFileSync(`docs/rpc/${name}.swagger.json`, "utf8"));
      expect(r.body).toEqual(onDisk);
      expect(r.body.swagger).toBe("2.0");
      expect(r.body.info.version).toBe("version not set");
      expect(r.body.securityDefinitions).toBeUndefined();
      const paths = Object.keys(r.body.paths);
      // common.proto holds shared messages only: no service, no paths.
      if (name !== "common") expect(paths.length, name).toBeGreaterThan(0);
      for (const p of paths) {
        expect(p).toMatch(/^\/attic\.v1\.[A-Za-z]+Service\/[A-Za-z]+$/);
        expect(Object.keys(r.body.paths[p])).toEqual(["post"]);
      }
    }
  });

  it("writes bytes as base64 strings and streams as ordinary POSTs", async () => {
    const file = (await s.api("GET", "/swagger/rpc/file.json")).body;
    expect(file.definitions.v1UploadFileRequest.properties.chunk).toMatchObject({
      type: "string",
      format: "byte",
    });
    expect(file.paths["/attic.v1.FileService/DownloadFile"].post.responses["200"].schema.$ref).toBe(
      "#/definitions/v1DownloadFileResponse",
    );
    const search = (await s.api("GET", "/swagger/rpc/search.json")).body;
    expect(search.paths["/attic.v1.SearchService/SearchStream"].post).toBeDefined();
  });
});
