import { type IncomingMessage, STATUS_CODES } from "node:http";
import { Readable } from "node:stream";
import type { Element } from "@xmldom/xmldom";
import type { AppContext } from "../../context.ts";
import type { Actor } from "../../domain/actor.ts";
import type { DavResource, DeadProperty } from "../../domain/dav/dav.service.ts";
import { ifHolds, matchHolds, parseIf, tokensOf } from "../../domain/dav/if-header.ts";
import { type DavLock, LockTable, timeoutOf } from "../../domain/dav/locks.ts";
import { entityTag } from "../../domain/files/content.ts";
import type { ListingRow as FileRow } from "../../domain/files/files.repo.ts";
import { AppError, ERRORS } from "../../errors.ts";
import type { RateLimits } from "../../platform/rate-limiter.ts";
import type { Env } from "../env.ts";
import { sendContent } from "../file-response.ts";
import { escapeXml } from "./escape-xml.ts";
import { DAV_PREFIX } from "./prefix.ts";
import { child, children, DAV, emptyElement, innerXml, MAX_XML_BYTES, parseXml, serialize } from "./xml.ts";

type Ctx = import("hono").Context<Env>;

const LIVE_PROPS = [
  "displayname",
  "resourcetype",
  "getcontentlength",
  "getcontenttype",
  "getetag",
  "getlastmodified",
  "creationdate",
  "supportedlock",
  "lockdiscovery",
] as const;
/** About how many characters of a streamed body are made at a time. */
const STREAM_CHUNK = 64 * 1024;
/** Rows whose dead properties are read at a time for a listing. */
const DEAD_PROPS_ROWS = 32;
const ALLOW = "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, MKCOL, COPY, MOVE, LOCK, UNLOCK";

class DavStatus extends Error {
  readonly status: number;
  readonly body?: string;
  constructor(status: number, body?: string) {
    super(`dav ${status}`);
    this.status = status;
    if (body !== undefined) this.body = body;
  }
}

const statusLine = (code: number) => `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ""}`.trimEnd();

const preconditionBody = (name: string) =>
  `<?xml version="1.0" encoding="utf-8"?>\n<D:error xmlns:D="DAV:"><D:${name}/></D:error>`;

/** The path's decoded segments after /dav; 400 on a malformed escape. */
function segmentsOf(pathname: string): string[] {
  const rest = pathname.startsWith(DAV_PREFIX) ? pathname.slice(DAV_PREFIX.length) : pathname;
  try {
    return rest
      .split("/")
      .filter((s) => s !== "")
      .map((s) => decodeURIComponent(s).normalize("NFC"));
  } catch {
    throw new AppError("VALIDATION", "malformed path");
  }
}

const keyOf = (segments: readonly string[]) => (segments.length ? `/${segments.join("/")}` : "");
const hrefOf = (segments: readonly string[], collection: boolean) =>
  `${DAV_PREFIX}/${segments.map((s) => encodeURIComponent(s)).join("/")}${collection && segments.length ? "/" : ""}`;

const etagOf = (row: FileRow) =>
  row.type === "directory"
    ? `"d${Date.parse(row.updated_at).toString(16)}"`
    : entityTag(row, row.size, row.host_mtime_ms ?? Date.parse(row.created_at));

/**
 * Reads a request body as text, up to `max` bytes: 413 as soon as it is
 * crossed (or declared), without reading the rest. Reading it whole first
 * held a 1.5 GiB PROPFIND body in memory (4.8 GB of RSS) before the 413.
 */
async function bodyText(c: Ctx, max = MAX_XML_BYTES): Promise<string> {
  const tooLarge = () => new AppError("PAYLOAD_TOO_LARGE", "request body too large");
  if (Number(c.req.header("content-length") ?? 0) > max) throw tooLarge();
  const body = c.req.raw.body;
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * WebDAV class 1 and 2 at /dav/ (docs/webdav.md) over the caller's
 * organization tree: the same services, grants and rules as REST and RPC.
 * HTTP Basic with the password or, better for devices, an API key as the
 * password; failures count against the address like logins. No cookies.
 */
export function davHandler(ctx: AppContext, limits: RateLimits): (c: Ctx) => Promise<Response> {
  const locks = new LockTable();
  const dav = ctx.services.dav;
  const rl = ctx.cfg.rate_limit.enabled;

  async function authenticate(c: Ctx): Promise<Actor> {
    const header = c.req.header("authorization") ?? "";
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    const ip = c.get("clientIp");
    const signIn = () => {
      if (rl && !limits.login.hit(ip).allowed)
        throw new AppError("RATE_LIMITED", "too many sign-ins from this address; retry later");
    };
    if (m) {
      const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon > 0) {
        // Each password checked counts against the sign-in limit before the check:
        // counted after a failure, a burst of guesses sent at once was all checked.
        let counted = false;
        const guessing = () => {
          counted = true;
          signIn();
        };
        try {
          const actor = await ctx.services.auth.authenticateBasic(
            decoded.slice(0, colon),
            decoded.slice(colon + 1),
            guessing,
          );
          if (rl) {
            const r = limits.user.hit(actor.userId);
            if (!r.allowed) throw new AppError("RATE_LIMITED", "rate limit exceeded, retry in 60 seconds");
          }
          c.set("actor", actor);
          return actor;
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== "UNAUTHENTICATED") throw err;
          if (counted) throw new DavStatus(401);
        }
      }
      // A malformed header or a wrong API key: counted once known.
      signIn();
    }
    throw new DavStatus(401);
  }

  /** The If header's verdict for this request: 412 when it does not hold; the tokens it submits. */
  function checkIf(c: Ctx, actor: Actor, segments: string[], resource: DavResource | undefined): string[] {
    const header = c.req.header("if");
    if (!header) return [];
    const lists = parseIf(header);
    if (!lists) throw new AppError("VALIDATION", "malformed If header");
    const org = actor.organizationId;
    const holds = ifHolds(lists, (tagged) => {
      let segs = segments;
      let res = resource;
      if (tagged !== undefined) {
        let path = tagged;
        try {
          path = new URL(tagged, "http://x").pathname;
        } catch {}
        segs = segmentsOf(path);
        res = dav.resolve(actor, segs);
      }
      const tokens = locks.covering(org, keyOf(segs)).map((l) => l.token);
      const etag = res?.kind === "row" ? etagOf(res.row) : undefined;
      return { tokens, ...(etag ? { etag } : {}) };
    });
    if (!holds) throw new DavStatus(412);
    return tokensOf(lists);
  }

  /**
   * 423 unless the locks on the paths touched were submitted by their
   * owner: `paths` (the resource, and a new member's parent collection),
   * `deep` paths for what lies below (a collection deleted or moved). An
   * exclusive lock must be the caller's own; of the shared locks on one
   * resource, one is enough (RFC 4918 6.1: each holder may write).
   */
  function checkLocks(actor: Actor, submitted: string[], paths: string[], deep: string[] = []): void {
    const org = actor.organizationId;
    const byRoot = (ls: DavLock[]) => Map.groupBy(ls, (l) => l.root).values();
    const groups = [
      ...paths.map((p) => locks.covering(org, p)),
      ...deep.flatMap((p) => [...byRoot(locks.under(org, p))]),
    ];
    const held = (l: DavLock) => submitted.includes(l.token) && l.userId === actor.userId;
    for (const group of groups) {
      const shared = group.filter((l) => l.scope === "shared");
      if (
        group.some((l) => l.scope === "exclusive" && !held(l)) ||
        (shared.length > 0 && !shared.some(held))
      ) {
        throw new DavStatus(423, preconditionBody("lock-token-submitted"));
      }
    }
  }

  function parentOf(actor: Actor, segments: string[]): DavResource {
    const parent = dav.resolve(actor, segments.slice(0, -1));
    if (!parent || (parent.kind === "row" && parent.row.type !== "directory")) throw new DavStatus(409);
    return parent;
  }

  // ---- properties ----

  function lockDiscovery(actor: Actor, segments: string[]): string {
    const here = locks.covering(actor.organizationId, keyOf(segments));
    return here.map((l) => activeLock(l)).join("");
  }

  function activeLock(l: DavLock): string {
    const root = l.root === "" ? [] : l.root.slice(1).split("/");
    return (
      `<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope><D:${l.scope}/></D:lockscope>` +
      `<D:depth>${l.depth === "0" ? "0" : "infinity"}</D:depth>` +
      (l.owner ? `<D:owner>${l.owner}</D:owner>` : "") +
      `<D:timeout>Second-${Math.max(0, Math.round((l.expiresAt - Date.now()) / 1000))}</D:timeout>` +
      `<D:locktoken><D:href>${escapeXml(l.token)}</D:href></D:locktoken>` +
      `<D:lockroot><D:href>${escapeXml(hrefOf(root, false))}</D:href></D:lockroot></D:activelock>`
    );
  }

  /** A live property's XML, or undefined when the resource has none of that name. */
  function liveProp(actor: Actor, name: string, segments: string[], res: DavResource): string | undefined {
    const row = res.kind === "row" ? res.row : undefined;
    const dir = !row || row.type === "directory";
    switch (name) {
      case "displayname":
        return `<D:displayname>${escapeXml(row ? dav.nameOf(actor, row) : "")}</D:displayname>`;
      case "resourcetype":
        return dir ? "<D:resourcetype><D:collection/></D:resourcetype>" : "<D:resourcetype/>";
      case "getcontentlength":
        return row && !dir ? `<D:getcontentlength>${row.size}</D:getcontentlength>` : undefined;
      case "getcontenttype":
        return row && !dir ? `<D:getcontenttype>${escapeXml(row.mime_type)}</D:getcontenttype>` : undefined;
      case "getetag":
        return row ? `<D:getetag>${escapeXml(etagOf(row))}</D:getetag>` : undefined;
      case "getlastmodified":
        return row
          ? `<D:getlastmodified>${new Date(row.updated_at).toUTCString()}</D:getlastmodified>`
          : undefined;
      case "creationdate":
        return row ? `<D:creationdate>${row.created_at}</D:creationdate>` : undefined;
      case "supportedlock":
        return (
          "<D:supportedlock>" +
          "<D:lockentry><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>" +
          "<D:lockentry><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>" +
          "</D:supportedlock>"
        );
      case "lockdiscovery":
        return `<D:lockdiscovery>${lockDiscovery(actor, segments)}</D:lockdiscovery>`;
      case "quota-available-bytes":
        // RFC 4331, asked for by name (not in allprop): free space where uploads go.
        return dir ? `<D:quota-available-bytes>${dav.availableBytes()}</D:quota-available-bytes>` : undefined;
      default:
        return undefined;
    }
  }

  type Want = { kind: "all" } | { kind: "names" } | { kind: "some"; props: { ns: string; name: string }[] };

  function propResponse(
    actor: Actor,
    segments: string[],
    res: DavResource,
    want: Want,
    deadOf: Map<string, DeadProperty[]>,
  ): string {
    const row = res.kind === "row" ? res.row : undefined;
    const dead = row ? (deadOf.get(row.id) ?? []) : [];
    const collection = !row || row.type === "directory";
    const found: string[] = [];
    const missing: string[] = [];
    if (want.kind === "names") {
      for (const n of LIVE_PROPS)
        if (liveProp(actor, n, segments, res) !== undefined) found.push(`<D:${n}/>`);
      for (const d of dead) found.push(emptyElement(d.ns, d.name));
    } else if (want.kind === "all") {
      for (const n of LIVE_PROPS) {
        const x = liveProp(actor, n, segments, res);
        if (x !== undefined) found.push(x);
      }
      for (const d of dead) found.push(d.xml);
    } else {
      for (const p of want.props) {
        const x =
          p.ns === DAV
            ? liveProp(actor, p.name, segments, res)
            : dead.find((d) => d.ns === p.ns && d.name === p.name)?.xml;
        if (x !== undefined) found.push(x);
        else missing.push(emptyElement(p.ns, p.name));
      }
    }
    const propstat = (items: string[], code: number) =>
      items.length
        ? `<D:propstat><D:prop>${items.join("")}</D:prop><D:status>${statusLine(code)}</D:status></D:propstat>`
        : "";
    return (
      `<D:response><D:href>${escapeXml(hrefOf(segments, collection))}</D:href>` +
      propstat(found, 200) +
      propstat(missing, 404) +
      "</D:response>"
    );
  }

  const MULTISTATUS_HEAD = `<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">`;
  const MULTISTATUS_TAIL = "</D:multistatus>";
  const multistatus = (inner: string) => `${MULTISTATUS_HEAD}${inner}${MULTISTATUS_TAIL}`;
  const XML_TYPE = { "Content-Type": 'application/xml; charset="utf-8"' };
  const xml = (c: Ctx, status: number, body: string, headers: Record<string, string> = {}) =>
    c.body(body, status as 200, { ...XML_TYPE, ...headers });

  /**
   * A body sent as it is made: `head`, then the strings of `parts`, about
   * STREAM_CHUNK characters at a time as the client takes them, with other
   * requests served in between, then `tail`. A collection of 100k members
   * was one 73 MiB string, built while the server did nothing else for
   * 1.5 s; a page of 500 members each answering many properties was still
   * one string of hundreds of MiB.
   */
  function streamed(head: string, parts: Iterator<string>, tail: string): ReadableStream<Uint8Array> {
    const utf8 = new TextEncoder();
    return new ReadableStream<Uint8Array>({
      start: (out) => out.enqueue(utf8.encode(head)),
      async pull(out) {
        await new Promise((resolve) => setImmediate(resolve));
        let chunk = "";
        while (chunk.length < STREAM_CHUNK) {
          const next = parts.next();
          if (next.done) {
            out.enqueue(utf8.encode(chunk + tail));
            out.close();
            return;
          }
          chunk += next.value;
        }
        out.enqueue(utf8.encode(chunk));
      },
    });
  }

  // ---- methods ----

  async function propfind(c: Ctx, actor: Actor, segments: string[]): Promise<Response> {
    const res = dav.resolve(actor, segments);
    if (!res) throw new DavStatus(404);
    const depth = c.req.header("depth") ?? "1";
    if (depth !== "0" && depth !== "1") throw new DavStatus(403, preconditionBody("propfind-finite-depth"));
    const text = await bodyText(c);
    let want: Want = { kind: "all" };
    if (text.trim()) {
      const root = parseXml(text);
      if (root.namespaceURI !== DAV || root.localName !== "propfind")
        throw new AppError("VALIDATION", "expected DAV:propfind");
      const prop = child(root, DAV, "prop");
      if (child(root, DAV, "propname")) want = { kind: "names" };
      else if (prop) {
        want = {
          kind: "some",
          props: children(prop).map((e) => ({ ns: e.namespaceURI ?? "", name: e.localName ?? "" })),
        };
      }
    }
    const needDead = want.kind !== "some" || want.props.some((p) => p.ns !== DAV);
    const deadOf = (rows: FileRow[]) => (needDead ? dav.deadProps(rows) : new Map());
    const self = propResponse(actor, segments, res, want, deadOf(res.kind === "row" ? [res.row] : []));
    if (depth === "0" || (res.kind === "row" && res.row.type !== "directory")) {
      return xml(c, 207, multistatus(self));
    }
    const member = (m: FileRow, dead: Map<string, DeadProperty[]>) =>
      propResponse(actor, [...segments, dav.nameOf(actor, m)], { kind: "row", row: m }, want, dead);
    function* members(of: DavResource): Generator<string> {
      for (const page of dav.memberPages(actor, of)) {
        // Dead properties a few rows at a time: up to 1.6 MiB of them on each.
        for (let i = 0; i < page.length; i += DEAD_PROPS_ROWS) {
          const rows = page.slice(i, i + DEAD_PROPS_ROWS);
          const dead = deadOf(rows);
          for (const m of rows) yield member(m, dead);
        }
      }
    }
    return c.body(streamed(MULTISTATUS_HEAD + self, members(res), MULTISTATUS_TAIL), 207, XML_TYPE);
  }

  async function proppatch(c: Ctx, actor: Actor, segments: string[], submitted: string[]): Promise<Response> {
    const res = dav.resolve(actor, segments);
    if (!res) throw new DavStatus(404);
    if (res.kind === "top") throw new DavStatus(403);
    checkLocks(actor, submitted, [keyOf(segments)]);
    const root = parseXml(await bodyText(c));
    if (root.namespaceURI !== DAV || root.localName !== "propertyupdate") {
      throw new AppError("VALIDATION", "expected DAV:propertyupdate");
    }
    type Op =
      | { op: "set"; ns: string; name: string; xml: string }
      | { op: "remove"; ns: string; name: string };
    const ops: Op[] = [];
    for (const action of children(root, DAV)) {
      if (action.localName !== "set" && action.localName !== "remove") continue;
      for (const prop of children(action, DAV, "prop")) {
        for (const p of children(prop)) {
          const ns = p.namespaceURI ?? "";
          const name = p.localName ?? "";
          ops.push(
            action.localName === "set"
              ? { op: "set", ns, name, xml: serialize(p as Element) }
              : { op: "remove", ns, name },
          );
        }
      }
    }
    const forbidden = ops.filter((o) => o.ns === DAV);
    const statusFor = (o: Op) => (forbidden.length === 0 ? 200 : o.ns === DAV ? 403 : 424);
    if (forbidden.length === 0) dav.patchProps(actor, res.row, ops);
    const byStatus = new Map<number, string[]>();
    for (const o of ops) {
      const list = byStatus.get(statusFor(o)) ?? [];
      list.push(emptyElement(o.ns, o.name));
      byStatus.set(statusFor(o), list);
    }
    const stats = [...byStatus]
      .map(
        ([code, items]) =>
          `<D:propstat><D:prop>${items.join("")}</D:prop><D:status>${statusLine(code)}</D:status></D:propstat>`,
      )
      .join("");
    return xml(
      c,
      207,
      multistatus(
        `<D:response><D:href>${escapeXml(hrefOf(segments, res.row.type === "directory"))}</D:href>${stats}</D:response>`,
      ),
    );
  }

  async function put(c: Ctx, actor: Actor, segments: string[], submitted: string[]): Promise<Response> {
    if (segments.length === 0) throw new DavStatus(405);
    // A partial PUT is not supported: storing the fragment as the whole file would lose the rest.
    if (c.req.header("content-range") !== undefined)
      throw new AppError("VALIDATION", "partial PUT (Content-Range) is not supported");
    const existing = dav.resolve(actor, segments);
    if (existing?.kind === "row" && existing.row.type === "directory") throw new DavStatus(405);
    const parent = parentOf(actor, segments);
    checkLocks(actor, submitted, [keyOf(segments), keyOf(segments.slice(0, -1))]);
    const incoming = c.env?.incoming as IncomingMessage | undefined;
    const source: AsyncIterable<Uint8Array> =
      incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as never) : Readable.from([]));
    // Its length, when the client says it (macOS Finder's chunked PUTs say X-Expected-Entity-Length):
    // past the storage reserve it is refused before a byte is read.
    const declared = Number(c.req.header("content-length") ?? c.req.header("x-expected-entity-length"));
    const made = await ctx.services.files.upload(actor, {
      name: segments.at(-1)!,
      parentId: parent.kind === "top" ? null : parent.row.id,
      source,
      replace: true,
      ...(declared > 0 ? { declaredBytes: declared } : {}),
    });
    // New content, same resource: its dead properties stay (RFC 4918 §9.7.1); the old version keeps its own in the trash.
    if (existing?.kind === "row") dav.copyProps(existing.row.id, made.id);
    return c.body(null, existing ? 204 : 201);
  }

  async function mkcol(c: Ctx, actor: Actor, segments: string[], submitted: string[]): Promise<Response> {
    // Any body is 415 (no extended MKCOL): its first byte tells, the rest is not read.
    const bodied = await bodyText(c, 0).then(
      (text) => text !== "",
      () => true,
    );
    if (bodied) throw new DavStatus(415);
    if (segments.length === 0 || dav.resolve(actor, segments)) throw new DavStatus(405);
    const parent = parentOf(actor, segments);
    checkLocks(actor, submitted, [keyOf(segments), keyOf(segments.slice(0, -1))]);
    dav.mkcol(actor, parent, segments.at(-1)!);
    return c.body(null, 201);
  }

  async function remove(c: Ctx, actor: Actor, segments: string[], submitted: string[]): Promise<Response> {
    const res = dav.resolve(actor, segments);
    if (!res) throw new DavStatus(404);
    if (res.kind === "top") throw new DavStatus(403);
    checkLocks(actor, submitted, [keyOf(segments), keyOf(segments.slice(0, -1))], [keyOf(segments)]);
    await dav.remove(actor, res.row);
    locks.dropUnder(actor.organizationId, keyOf(segments));
    return c.body(null, 204);
  }

  function destinationOf(c: Ctx): string[] {
    const header = c.req.header("destination");
    if (!header) throw new AppError("VALIDATION", "Destination header required");
    let url: URL;
    try {
      url = new URL(header, c.req.url);
    } catch {
      throw new AppError("VALIDATION", "malformed Destination");
    }
    // Another host (or port) is another server, even with a path like ours: never a local copy.
    if (!hostsOf(c).includes(url.host)) throw new DavStatus(502);
    const path = url.pathname;
    if (path !== DAV_PREFIX && !path.startsWith(`${DAV_PREFIX}/`)) throw new DavStatus(502);
    return segmentsOf(path);
  }

  /**
   * The names this request reached the server by: its Host, and behind a
   * trusted proxy (server.trust_proxy) the last X-Forwarded-Host, as the
   * client address takes the last X-Forwarded-For.
   */
  function hostsOf(c: Ctx): string[] {
    const hosts = [new URL(c.req.url).host];
    const forwarded = ctx.cfg.server.trust_proxy
      ? c.req.header("x-forwarded-host")?.split(",").at(-1)?.trim()
      : "";
    if (forwarded) {
      try {
        hosts.push(new URL(`http://${forwarded}`).host);
      } catch {}
    }
    return hosts;
  }

  async function copyOrMove(c: Ctx, actor: Actor, segments: string[], submitted: string[], move: boolean) {
    const res = dav.resolve(actor, segments);
    if (!res) throw new DavStatus(404);
    if (res.kind === "top") throw new DavStatus(403);
    const dest = destinationOf(c);
    if (dest.length === 0 || keyOf(dest) === keyOf(segments)) throw new DavStatus(403);
    if (keyOf(dest).startsWith(`${keyOf(segments)}/`)) throw new DavStatus(403);
    const overwrite = (c.req.header("overwrite") ?? "T").toUpperCase() !== "F";
    const depth = c.req.header("depth") ?? "infinity";
    const parent = parentOf(actor, dest);
    const existing = dav.resolve(actor, dest);
    if (existing && !overwrite) throw new DavStatus(412);
    checkLocks(
      actor,
      submitted,
      [
        keyOf(dest),
        keyOf(dest.slice(0, -1)),
        ...(move ? [keyOf(segments), keyOf(segments.slice(0, -1))] : []),
      ],
      [keyOf(dest), ...(move ? [keyOf(segments)] : [])],
    );
    // Asked before the destination goes to the trash: a refused MOVE or COPY leaves it as it was.
    if (!dav.canWriteIn(actor, parent) || (move && !dav.canMove(actor, res.row))) throw new DavStatus(403);
    if (existing?.kind === "row") {
      await dav.remove(actor, existing.row);
      locks.dropUnder(actor.organizationId, keyOf(dest));
    }
    const parentId = parent.kind === "top" ? null : parent.row.id;
    const name = dest.at(-1)!;
    if (move) {
      await ctx.services.files.update(actor, res.row.id, { name, parent_id: parentId });
      locks.dropUnder(actor.organizationId, keyOf(segments));
    } else if (res.row.type === "directory" && depth === "0") {
      const made = dav.mkcol(actor, parent, name);
      dav.copyProps(res.row.id, made.id);
    } else {
      const made = await ctx.services.files.copy(actor, res.row.id, {
        destination_parent_id: parentId,
        new_name: name,
      });
      dav.copyProps(res.row.id, made.id);
    }
    return c.body(null, existing ? 204 : 201);
  }

  async function lock(c: Ctx, actor: Actor, segments: string[], submitted: string[]): Promise<Response> {
    const org = actor.organizationId;
    const key = keyOf(segments);
    const text = await bodyText(c);
    const timeout = timeoutOf(c.req.header("timeout"));
    if (!text.trim()) {
      // A refresh: the If header names the lock.
      const l = submitted.map((t) => locks.byToken(t)).find((x) => x && locks.covering(org, key).includes(x));
      if (!l || l.userId !== actor.userId)
        throw new DavStatus(412, preconditionBody("lock-token-matches-request-uri"));
      locks.refresh(l, timeout);
      return xml(
        c,
        200,
        `<?xml version="1.0" encoding="utf-8"?>\n<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLock(l)}</D:lockdiscovery></D:prop>`,
      );
    }
    const info = parseXml(text);
    if (info.namespaceURI !== DAV || info.localName !== "lockinfo")
      throw new AppError("VALIDATION", "expected DAV:lockinfo");
    const scopeEl = child(info, DAV, "lockscope");
    const scope = scopeEl && child(scopeEl, DAV, "shared") ? "shared" : "exclusive";
    const ownerEl = child(info, DAV, "owner");
    const owner = ownerEl ? innerXml(ownerEl) : "";
    const depth = c.req.header("depth") === "0" ? "0" : "infinity";
    let res = dav.resolve(actor, segments);
    let created = false;
    if (!res) {
      // A lock on an unmapped URL creates an empty resource (RFC 4918 §9.10.4).
      const parent = parentOf(actor, segments);
      checkLocks(actor, submitted, [keyOf(segments.slice(0, -1))]);
      await ctx.services.files.upload(actor, {
        name: segments.at(-1)!,
        parentId: parent.kind === "top" ? null : parent.row.id,
        source: Readable.from([]),
      });
      res = dav.resolve(actor, segments);
      created = true;
    }
    // Locks are by path for the whole organization: one on the top with depth infinity
    // would hold up every write of everyone, in folders its holder cannot even see.
    if (res?.kind === "top" && depth === "infinity") throw new DavStatus(403);
    if (res && !dav.canWriteIn(actor, res)) throw new DavStatus(403);
    // Nor one reaching folders below that its holder may not change.
    if (res?.kind === "row" && depth === "infinity" && dav.reachesUnwritable(actor, res.row))
      throw new DavStatus(403);
    const l = locks.lock(org, actor.userId, key, { depth, scope, owner, timeoutSeconds: timeout });
    if (!l) throw new DavStatus(423, preconditionBody("no-conflicting-lock"));
    return xml(
      c,
      created ? 201 : 200,
      `<?xml version="1.0" encoding="utf-8"?>\n<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLock(l)}</D:lockdiscovery></D:prop>`,
      { "Lock-Token": `<${l.token}>` },
    );
  }

  function unlock(c: Ctx, actor: Actor, segments: string[]): Response {
    const token = /^\s*<([^>]+)>\s*$/.exec(c.req.header("lock-token") ?? "")?.[1];
    if (!token) throw new AppError("VALIDATION", "Lock-Token header required");
    const l = locks.byToken(token);
    if (!l || !locks.covering(actor.organizationId, keyOf(segments)).includes(l)) {
      throw new DavStatus(409, preconditionBody("lock-token-matches-request-uri"));
    }
    if (l.userId !== actor.userId) throw new DavStatus(403);
    locks.unlock(token);
    return c.body(null, 204);
  }

  async function get(c: Ctx, actor: Actor, segments: string[]): Promise<Response> {
    const res = dav.resolve(actor, segments);
    if (!res) throw new DavStatus(404);
    if (res.kind === "top" || res.row.type === "directory") {
      const item = (m: FileRow) => {
        const n = dav.nameOf(actor, m);
        return `<li><a href="${escapeXml(hrefOf([...segments, n], m.type === "directory"))}">${escapeXml(n)}</a></li>`;
      };
      function* items(of: DavResource): Generator<string> {
        for (const page of dav.memberPages(actor, of)) yield* page.map(item);
      }
      const body = streamed(
        `<!doctype html><meta charset="utf-8"><title>Attic</title><ul>`,
        items(res),
        "</ul>",
      );
      return c.body(body, 200, {
        "Content-Type": "text/html; charset=UTF-8",
        "Content-Security-Policy": "sandbox; default-src 'none'",
      });
    }
    const opened = await ctx.services.files.openContent(actor, res.row.id);
    ctx.services.files.countDownload("download");
    return sendContent(c, opened, "attachment");
  }

  return async function davRequest(c) {
    const method = c.req.method.toUpperCase();
    const base = { DAV: "1, 2", "MS-Author-Via": "DAV", Allow: ALLOW };
    try {
      if (method === "OPTIONS") return c.body(null, 200, base);
      const actor = await authenticate(c);
      // A fragment never belongs in a request: refuse rather than act on a shorter path.
      if (c.req.url.includes("#")) throw new DavStatus(400);
      const segments = segmentsOf(c.req.path);
      if (segments.some((s) => s.includes("/") || s === "." || s === "..")) throw new DavStatus(400);
      const target = dav.resolve(actor, segments);
      const submitted = checkIf(c, actor, segments, target);
      // GET and HEAD answer their conditions with the content (304); a write that does not hold is 412.
      if (method !== "GET" && method !== "HEAD") {
        const current = {
          exists: target !== undefined,
          etag: target?.kind === "row" ? etagOf(target.row) : undefined,
        };
        if (!matchHolds(c.req.header("if-match"), c.req.header("if-none-match"), current))
          throw new DavStatus(412);
      }
      switch (method) {
        case "GET":
        case "HEAD":
          return await get(c, actor, segments);
        case "PROPFIND":
          return await propfind(c, actor, segments);
        case "PROPPATCH":
          return await proppatch(c, actor, segments, submitted);
        case "PUT":
          return await put(c, actor, segments, submitted);
        case "MKCOL":
          return await mkcol(c, actor, segments, submitted);
        case "DELETE":
          return await remove(c, actor, segments, submitted);
        case "COPY":
          return await copyOrMove(c, actor, segments, submitted, false);
        case "MOVE":
          return await copyOrMove(c, actor, segments, submitted, true);
        case "LOCK":
          return await lock(c, actor, segments, submitted);
        case "UNLOCK":
          return unlock(c, actor, segments);
        default:
          return c.body(null, 405, base);
      }
    } catch (err) {
      if (err instanceof DavStatus) {
        const headers: Record<string, string> =
          err.status === 401 ? { "WWW-Authenticate": 'Basic realm="Attic", charset="UTF-8"' } : {};
        if (err.status === 405) Object.assign(headers, base);
        return err.body ? xml(c, err.status, err.body, headers) : c.body(null, err.status as 200, headers);
      }
      if (err instanceof AppError) {
        // The file services' answers, in WebDAV's terms.
        const code =
          err.code === "CONFLICT"
            ? 405
            : err.code === "PERMISSION_DENIED" || err.code === "READ_ONLY" || err.code === "FORBIDDEN_PATH"
              ? 403
              : ERRORS[err.code].http;
        const headers: Record<string, string> =
          code === 401 ? { "WWW-Authenticate": 'Basic realm="Attic", charset="UTF-8"' } : {};
        if (code >= 500) ctx.log.error({ err }, "webdav request failed");
        return c.text(err.message, code as 200, headers);
      }
      ctx.log.error({ err }, "webdav request failed");
      return c.text("internal error", 500);
    }
  };
}
