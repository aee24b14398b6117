import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeName } from "../../src/domain/files/names.ts";
import { parseRange } from "../../src/domain/files/range.ts";
import { AppError } from "../../src/errors.ts";
import { confinedLinkTarget, isInside, openConfined } from "../../src/platform/hostfs.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const SIZE = fc.integer({ min: 0, max: 2 ** 40 });

describe("parseRange (property)", () => {
  it("never throws, and a partial range always lies inside the file", () => {
    const header = fc.oneof(
      fc.string(),
      fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => `bytes=${a}-${b}`),
      fc
        .array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 50 })
        .map((r) => `bytes=${r.map(([a, b]) => `${a}-${b}`).join(",")}`),
      fc.stringMatching(/^bytes=[-0-9, ]{0,40}$/),
    );
    fc.assert(
      fc.property(header, SIZE, (h, size) => {
        const r = parseRange(h, size);
        if (r.kind === "partial") {
          expect(r.start).toBeGreaterThanOrEqual(0);
          expect(r.end).toBeGreaterThanOrEqual(r.start);
          expect(r.end).toBeLessThan(size);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("serves exactly bytes a..min(b, size-1) for a satisfiable single range", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.nat(), fc.nat(), (size, x, y) => {
        const [a, b] = [Math.min(x, y) % size, Math.max(x, y)];
        expect(parseRange(`bytes=${a}-${b}`, size)).toEqual({
          kind: "partial",
          start: a,
          end: Math.min(b, size - 1),
        });
      }),
    );
  });

  it("serves the last n bytes for a suffix range and 416 past the end", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: 1, max: 2 ** 41 }), (size, n) => {
        expect(parseRange(`bytes=-${n}`, size)).toEqual({
          kind: "partial",
          start: Math.max(0, size - n),
          end: size - 1,
        });
        expect(parseRange(`bytes=${size + (n % 1000)}-`, size)).toEqual({ kind: "unsatisfiable" });
      }),
    );
  });
});

describe("normalizeName (property)", () => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the property is about control characters
  const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f/\\]/;

  it("returns only safe, NFC, idempotent names, or a 400", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), fc.constantFrom(".", "..", "a/..", "")),
        (raw) => {
          let name: string;
          try {
            name = normalizeName(raw);
          } catch (err) {
            expect(err).toBeInstanceOf(AppError);
            expect((err as AppError).status).toBe(400);
            return;
          }
          expect(name.length).toBeGreaterThan(0);
          expect(name).not.toMatch(FORBIDDEN);
          expect([".", ".."]).not.toContain(name);
          expect(name.includes("..")).toBe(false);
          expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
          expect(name).toBe(name.normalize("NFC"));
          expect(normalizeName(name)).toBe(name);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("accepts every ordinary name", () => {
    const ordinary = fc.stringMatching(/^[A-Za-z0-9 _()\-\u00e9\u00fc\u6771\u4eac]{1,60}(\.[a-z0-9]{1,5})?$/);
    fc.assert(
      fc.property(ordinary, (raw) => {
        // ".." and all-blank names are refused on purpose (the other property covers them).
        fc.pre(!raw.includes("..") && raw.trim() !== "");
        expect(normalizeName(raw)).toBe(raw.normalize("NFC"));
      }),
    );
  });
});

describe("path confinement (property)", () => {
  const segment = fc.oneof(fc.constantFrom("..", ".", "a", "b", "c"), fc.stringMatching(/^[a-z]{1,3}$/));

  it("isInside agrees with resolving the path segment by segment, including ../ and prefix siblings", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{1,3}$/), { minLength: 1, maxLength: 3 }),
        fc.array(segment, { maxLength: 8 }),
        (rootSegs, rel) => {
          const root = `/${rootSegs.join("/")}`;
          const resolved = normalize(`${root}/${rel.join("/")}`).replace(/(.)\/$/, "$1");
          const stack = [...rootSegs];
          for (const s of rel) {
            if (s === "..") stack.pop();
            else if (s !== ".") stack.push(s);
          }
          const expected = stack.length >= rootSegs.length && rootSegs.every((s, i) => stack[i] === s);
          expect(isInside(resolved, root)).toBe(expected);
          expect(isInside(`${root}x`, root)).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  describe("openConfined and confinedLinkTarget on real symlinks", () => {
    let base: string;
    beforeAll(() => {
      base = realpathSync(mkdtempSync(join(tmpdir(), "attic-confine-")));
    });
    afterAll(() => rmSync(base, { recursive: true, force: true }));

    // A link target: inside or outside the root, file or directory, absolute or relative, or dangling.
    const target = fc.constantFrom(
      "inside.txt",
      "sub",
      "sub/deep.txt",
      "../outside.txt",
      "../outdir",
      "../outdir/o.txt",
      "/etc/hostname",
      "missing",
      "sub/../../outside.txt",
    );

    it("never opens or follows anything outside the watched root", async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(target, { minLength: 1, maxLength: 6 }), async (targets) => {
          const dir = join(base, `case-${n++}`);
          const root = join(dir, "root");
          mkdirSync(join(root, "sub"), { recursive: true });
          mkdirSync(join(dir, "outdir"));
          writeFileSync(join(root, "inside.txt"), "in");
          writeFileSync(join(root, "sub/deep.txt"), "deep");
          writeFileSync(join(dir, "outside.txt"), "OUT");
          writeFileSync(join(dir, "outdir/o.txt"), "OUT");
          for (const [i, t] of targets.entries()) {
            symlinkSync(t, join(root, `link${i}`));
            symlinkSync(`../link${i}`, join(root, `sub/chain${i}`)); // a link to a link
          }
          for (const [i] of targets.entries()) {
            for (const p of [`link${i}`, `sub/chain${i}`, `link${i}/deep.txt`, `link${i}/o.txt`]) {
              const opened = await openConfined(join(root, p), root);
              if (opened) {
                expect(isInside(opened.realPath, root), p).toBe(true);
                await opened.handle.close();
              }
            }
            const kind = await confinedLinkTarget(join(root, `link${i}`), root);
            const t = targets[i]!;
            const escapes = t.startsWith("/") || t.includes("..") || t === "missing";
            if (escapes) expect(kind, t).toBeUndefined();
            else expect(kind, t).toBe(t === "sub" ? "dir" : "file");
          }
        }),
        { numRuns: 40 },
      );
    });
  });
});

describe("search query builder (property, through GET /search)", () => {
  let s: TestServer;
  let token: string;
  const names: string[] = [];
  const NAME = fc
    .stringMatching(/^[A-Za-z0-9_.-]{1,12}( [A-Za-z0-9_-]{1,8})?$/)
    .filter((n) => !n.includes(".."));

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    const sample = new Set(fc.sample(NAME, { numRuns: 150, seed: 42 }));
    for (const name of sample) {
      const form = new FormData();
      form.append("file", new Blob(["x"]), name);
      const r = await s.api("POST", "/api/v1/files", { body: form, token });
      if (r.status === 201) names.push(name);
    }
  });
  afterAll(() => s?.close());

  const search = async (q: string) => {
    const r = await s.api("GET", `/api/v1/search?limit=1000&q=${encodeURIComponent(q)}`, { token });
    return r;
  };

  it("never answers 5xx, whatever the text (no SQL or FTS5 syntax leaks through)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.constantFrom('"', "'", "*", "NEAR(", "a OR b", "col:x", "^x", "%_", "\\"),
        ),
        async (q) => {
          const r = await search(q);
          expect([200, 400], `${JSON.stringify(q)} -> ${r.text.slice(0, 200)}`).toContain(r.status);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("finds exactly the files whose path holds every term (ASCII, case-insensitive)", async () => {
    expect(names.length).toBeGreaterThan(50);
    const term = fc.oneof(
      fc
        .constantFrom(...names)
        .chain((n) =>
          fc
            .tuple(fc.nat(n.length - 1), fc.integer({ min: 1, max: 5 }))
            .map(([i, len]) => n.slice(i, i + len)),
        ),
      fc.stringMatching(/^[a-z0-9._-]{1,4}$/),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(term, { minLength: 1, maxLength: 3 }), fc.boolean(), async (terms, upper) => {
        const words = terms.flatMap((t) => t.split(/\s+/)).filter(Boolean);
        fc.pre(words.length > 0);
        const q = words.map((w) => (upper ? w.toUpperCase() : w)).join(" ");
        const expected = names
          .filter((n) => words.every((w) => `/${n}`.toLowerCase().includes(w.toLowerCase())))
          .sort();
        const r = await search(q);
        expect(r.status).toBe(200);
        const got = (r.body.files as { name: string }[]).map((f) => f.name).sort();
        expect(got, q).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });
});
