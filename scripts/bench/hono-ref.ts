/**
 * The reference for small authenticated API calls: a bare Hono app with a
 * bearer check (as /work/shared/bench/05-hono.sh), run by the same Node and
 * pinned the same way as Attic. Listens on 127.0.0.1:$PORT.
 */
import { timingSafeEqual } from "node:crypto";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

export const REF_TOKEN = "0123456789abcdef0123456789abcdef";
const expected = Buffer.from(`Bearer ${REF_TOKEN}`);
const app = new Hono<{ Variables: { user: string } }>();
app.get("/api/hello", (c) => c.json({ ok: true, msg: "hello", n: 42 }));
app.use("/api/me", async (c, next) => {
  const h = Buffer.from(c.req.header("authorization") ?? "");
  if (h.length !== expected.length || !timingSafeEqual(h, expected))
    return c.json({ error: "unauthorized" }, 401);
  c.set("user", "bench");
  await next();
});
app.get("/api/me", (c) => c.json({ ok: true, user: c.get("user"), n: 42 }));

if (import.meta.main) serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: "127.0.0.1" });
