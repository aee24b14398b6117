import type { ServerResponse } from "node:http";
import { createRoute } from "@hono/zod-openapi";
import { Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { AppContext } from "../../context.ts";
import { hashSecret } from "../../domain/auth/tokens.ts";
import type { FileRow } from "../../domain/files/files.repo.ts";
import { IdParam } from "../../domain/ids.schemas.ts";
import { CreatedShareSchema, CreateShareInput, ShareListSchema } from "../../domain/shares/shares.schemas.ts";
import type { OpenShare } from "../../domain/shares/shares.service.ts";
import { AppError } from "../../errors.ts";
import type { RateLimits } from "../../platform/rate-limiter.ts";
import { escapeXml } from "../dav/escape-xml.ts";
import { actorOf, type Env, type Router } from "../env.ts";
import { sendContent } from "../file-response.ts";
import { receiveUpload } from "../multipart-upload.ts";
import { errorResponse } from "../on-error.ts";
import { body, errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";
import { sendZip } from "../zip-response.ts";

function shareRoute<const R extends Parameters<typeof createRoute>[0]>(r: R) {
  return createRoute({ tags: ["Shares"], security: SECURED, ...r });
}

const create = shareRoute({
  method: "post",
  path: "/shares",
  summary: "Create a share link to a file or folder you may read",
  description:
    "Anyone with the link reads it without an account at `/s/<token>` (a page), `/s/<token>/download` (the file with " +
    "ranges, or a folder's zip) and `/s/<token>/zip`. The token is shown once. The link acts as you reading: it stops " +
    "when you lose the right, are deactivated, or the item is deleted.",
  request: body(CreateShareInput),
  responses: {
    201: { description: "Created", ...json(CreatedShareSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 429),
  },
});

const list = shareRoute({
  method: "get",
  path: "/shares",
  summary: "Your share links (an organization admin: the organization's), with downloads and last access",
  responses: {
    200: { description: "Shares", ...json(ShareListSchema) },
    ...errorResponses(401, 429),
  },
});

const remove = shareRoute({
  method: "delete",
  path: "/shares/{id}",
  summary: "Revoke a share link (its owner, or an organization admin)",
  request: { params: IdParam },
  responses: {
    200: { description: "Revoked", ...json(SuccessSchema) },
    ...errorResponses(400, 401, 404, 429),
  },
});

/** POST/GET /shares, DELETE /shares/:id: managing links. */
export function sharesRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const s = ctx.services.shares;
  r.openapi({ ...create, middleware: [guards.auth("file:read")] }, async (c) =>
    c.json(await s.create(actorOf(c), c.req.valid("json")), 201),
  );
  r.openapi({ ...list, middleware: [guards.auth("file:read")] }, (c) => c.json(s.list(actorOf(c)), 200));
  r.openapi({ ...remove, middleware: [guards.auth("file:read")] }, (c) =>
    c.json(s.remove(actorOf(c), c.req.valid("param").id), 200),
  );
  return r;
}

const esc = escapeXml;
const size = (n: number) =>
  n < 1024
    ? `${n} B`
    : n < 1024 ** 2
      ? `${(n / 1024).toFixed(1)} KiB`
      : n < 1024 ** 3
        ? `${(n / 1024 ** 2).toFixed(1)} MiB`
        : `${(n / 1024 ** 3).toFixed(2)} GiB`;

/** The public pages: no script at all, styles inline only, nothing framed, nothing loaded from elsewhere. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'";
const page = (title: string, inner: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<meta name="referrer" content="no-referrer"><title>${esc(title)} · Attic</title>` +
  `<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}` +
  `a.button,button{display:inline-block;background:#2458d3;color:#fff;padding:.6rem 1rem;border-radius:8px;border:0;text-decoration:none;font:inherit}` +
  `li{margin:.3rem 0}.muted{color:#59636e}input{font:inherit;padding:.5rem}</style>` +
  `<body><p class="muted">Shared with you through Attic</p>${inner}</body></html>`;

/**
 * `/s/<token>`: what people without an account see. Passwords travel as
 * `X-Share-Password`, or through the page's form, which sets a cookie scoped
 * to that link (HttpOnly, SameSite=Strict) holding a proof, never the
 * password. Anonymous traffic: the per-address limit applies; each
 * password checked also counts against the login limit.
 */
export function sharePages(ctx: AppContext, limits: RateLimits): Hono<Env> {
  const app = new Hono<Env>();
  const shares = ctx.services.shares;
  const cookieName = "attic_share";
  const proofOf = (share: { id: string; password_hash: string | null }) =>
    hashSecret(`proof\0${share.id}\0${share.password_hash}`);

  /** Opens the share of the request, with the password from the header, a form, or the cookie's proof. */
  async function openShare(c: import("hono").Context<Env>, formPassword?: string): Promise<OpenShare> {
    const token = c.req.param("token") ?? "";
    const ip = c.get("clientIp");
    if (ctx.cfg.rate_limit.enabled && limits.login.exhausted(ip)) {
      throw new AppError("RATE_LIMITED", "too many wrong passwords; retry later");
    }
    const given = formPassword ?? c.req.header("x-share-password");
    // A cookie set by the form proves the password without sending it again.
    const proof = getCookie(c, cookieName);
    // Each password checked counts against the login limit, before the check.
    const guessing = () => {
      if (ctx.cfg.rate_limit.enabled && !limits.login.hit(ip).allowed)
        throw new AppError("RATE_LIMITED", "too many wrong passwords; retry later");
    };
    return shares.open(token, given, (share) => proof !== undefined && proofOf(share) === proof, guessing);
  }

  const failure = (c: import("hono").Context<Env>, err: unknown) => {
    const e =
      err instanceof AppError ? err : new AppError("INTERNAL", "internal error", undefined, { cause: err });
    if (e.code === "SHARE_PASSWORD_REQUIRED" && (c.req.header("accept") ?? "").includes("text/html")) {
      const token = esc(c.req.param("token") ?? "");
      return c.html(
        page(
          "Password",
          `<h1>This link needs a password</h1><form method="post" action="/s/${token}">` +
            `<label>Password <input type="password" name="password" autofocus required></label> <button>Open</button></form>`,
        ),
        401,
        { "Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-store" },
      );
    }
    if (e.code === "INTERNAL") ctx.log.error({ err }, "share request failed");
    return errorResponse(c, e);
  };

  const entryLink = (token: string, f: FileRow) =>
    f.type === "directory"
      ? `<li>📁 <a href="/s/${esc(token)}?dir=${esc(f.id)}">${esc(f.name)}</a></li>`
      : `<li><a href="/s/${esc(token)}/f/${esc(f.id)}">${esc(f.name)}</a> <span class="muted">${size(f.size)}</span></li>`;

  app.get("/:token", async (c) => {
    try {
      const o = await openShare(c);
      const token = c.req.param("token");
      const headers = { "Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-store" };
      if (o.target.type !== "directory") {
        return c.html(
          page(
            o.target.name,
            `<h1>${esc(o.target.name)}</h1><p class="muted">${size(o.target.size)}</p>` +
              `<p><a class="button" href="/s/${esc(token)}/download">Download</a></p>`,
          ),
          200,
          headers,
        );
      }
      if (o.share.allow_upload) {
        // A drop folder: the form only; what others sent stays with the owner.
        return c.html(
          page(
            o.target.name,
            `<h1>${esc(o.target.name)}</h1><p class="muted">Files you add go to the owner of this folder; ` +
              `nobody with the link can see them.</p>` +
              `<form method="post" action="/s/${esc(token)}/upload" enctype="multipart/form-data">` +
              `<p><label>Add a file <input type="file" name="file" required></label> <button>Upload</button></p></form>` +
              (c.req.query("sent") === "1" ? `<p role="status">Thank you: your file was received.</p>` : ""),
          ),
          200,
          headers,
        );
      }
      const dirId = c.req.query("dir") ?? o.target.id;
      const here = shares.member(o, dirId);
      const pageNo = Math.min(1_000_000, Math.max(1, Number.parseInt(c.req.query("page") ?? "1", 10) || 1));
      const { rows: items, total, pageSize } = shares.members(o, here.id, pageNo);
      const sub = here.id !== o.target.id;
      // A big folder a page at a time: every member reachable, not only the first page's.
      const pageLink = (n: number, label: string) =>
        `<a href="/s/${esc(token)}?${sub ? `dir=${esc(here.id)}&amp;` : ""}page=${n}">${label}</a>`;
      const pages = Math.ceil(total / pageSize);
      const pager =
        pages > 1
          ? `<p class="muted">Page ${pageNo} of ${pages} (${total} items) ` +
            (pageNo > 1 ? pageLink(pageNo - 1, "Previous") : "") +
            (pageNo > 1 && pageNo < pages ? " · " : "") +
            (pageNo < pages ? pageLink(pageNo + 1, "Next") : "") +
            "</p>"
          : "";
      return c.html(
        page(
          here.name,
          `<h1>${esc(here.name)}</h1><p><a class="button" href="/s/${esc(token)}/zip${sub ? `?dir=${esc(here.id)}` : ""}">` +
            `Download all (zip)</a></p>` +
            (sub ? `<p><a href="/s/${esc(token)}">Back to ${esc(o.target.name)}</a></p>` : "") +
            `<ul>${items.map((f) => entryLink(token, f)).join("") || '<li class="muted">Empty</li>'}</ul>` +
            pager,
        ),
        200,
        headers,
      );
    } catch (err) {
      return failure(c, err);
    }
  });

  app.post("/:token", async (c) => {
    try {
      const form = await c.req.parseBody();
      const password = typeof form.password === "string" ? form.password : "";
      const o = await openShare(c, password);
      setCookie(c, cookieName, proofOf(o.share), {
        path: `/s/${c.req.param("token")}`,
        httpOnly: true,
        sameSite: "Strict",
        secure: new URL(c.req.url).protocol === "https:",
        maxAge: 12 * 3600,
      });
      return c.redirect(`/s/${c.req.param("token")}`, 303);
    } catch (err) {
      return failure(c, err);
    }
  });

  /** A download under way is cut off when its link is revoked: the rest of a big file does not go out. */
  const stopOnRevoke = (c: import("hono").Context<Env>, o: OpenShare) => {
    const out = c.env?.outgoing as ServerResponse | undefined;
    if (!out) return;
    const done = shares.underWay(o, () => out.destroy());
    out.once("close", done);
  };

  /**
   * A file through the share: a download counts when the bytes sent start at the first one, however
   * the range was written (a whole file, `bytes=0-`, a suffix as long as the file), not a player's
   * later range, a HEAD, a 304 or a 416. Past the limit it is 410 (shares.claim).
   */
  const sendFile = async (c: import("hono").Context<Env>, o: OpenShare, row: FileRow) => {
    const opened = await ctx.services.files.openContent(o.actor, row.id, { verify: false });
    return sendContent(c, opened, "attachment", (start) => {
      if (start === 0) shares.claim(o);
      stopOnRevoke(c, o);
    });
  };
  const sendFolder = async (c: import("hono").Context<Env>, o: OpenShare, dirId: string) => {
    shares.assertBrowsable(o);
    // Counted as the link's visitor (by address), not as its creator: a family fetching one link at once.
    const holder = `share:${o.share.id}:${c.get("clientIp") ?? ""}`;
    const plan = await ctx.services.files.zipPlan(o.actor, { directoryId: dirId }, holder);
    try {
      // A HEAD sends no zip: not a download.
      if (c.req.method !== "HEAD") shares.claim(o);
      stopOnRevoke(c, o);
    } catch (err) {
      plan.release();
      throw err;
    }
    return sendZip(c, plan, ctx.services.files.openEntry, ctx.log);
  };

  // A drop folder: the file goes into the shared folder (never where the form says), as its creator writing.
  app.post("/:token/upload", async (c) => {
    try {
      const o = await openShare(c);
      c.set("actor", shares.uploader(o));
      // A name already there gets a number, and the answer leaves the stored name out: nothing of the folder shows.
      const file = await receiveUpload(ctx, c, { parentId: o.target.id, freshName: true });
      if ((c.req.header("accept") ?? "").includes("text/html"))
        return c.redirect(`/s/${c.req.param("token")}?sent=1`, 303);
      return c.json({ id: file.id, size: file.size }, 201);
    } catch (err) {
      return failure(c, err);
    }
  });

  app.get("/:token/download", async (c) => {
    try {
      const o = await openShare(c);
      return o.target.type === "directory"
        ? await sendFolder(c, o, o.target.id)
        : await sendFile(c, o, o.target);
    } catch (err) {
      return failure(c, err);
    }
  });
  app.get("/:token/zip", async (c) => {
    try {
      const o = await openShare(c);
      if (o.target.type !== "directory")
        throw new AppError("VALIDATION", "this link is to a file: use /download");
      return await sendFolder(
        c,
        o,
        c.req.query("dir") ? shares.member(o, c.req.query("dir") as string).id : o.target.id,
      );
    } catch (err) {
      return failure(c, err);
    }
  });
  app.get("/:token/f/:fileId", async (c) => {
    try {
      const o = await openShare(c);
      if (o.target.type !== "directory") throw new AppError("FILE_NOT_FOUND", "file not found");
      const row = shares.member(o, c.req.param("fileId"));
      if (row.type === "directory") return await sendFolder(c, o, row.id);
      return await sendFile(c, o, row);
    } catch (err) {
      return failure(c, err);
    }
  });
  return app;
}
