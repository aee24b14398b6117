import { z } from "zod";

/** Parses "15m", "7d", "30s", "2h" or a bare number of seconds into seconds. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value > 0 ? value : undefined;
  const m = /^(\d+)\s*(s|m|h|d)?$/.exec(value.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? "s") as "s" | "m" | "h" | "d"];
  return n > 0 ? n * unit : undefined;
}

/** A duration: "30s", "15m", "2h", "7d" or a number of seconds; parsed to seconds. */
export const duration = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const seconds = parseDuration(v);
  if (seconds === undefined) {
    ctx.addIssue({
      code: "custom",
      message: `invalid duration ${JSON.stringify(v)} (use e.g. 30s, 15m, 7d)`,
    });
    return z.NEVER;
  }
  return seconds;
});

const bool = z.union([
  z.boolean(),
  z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => ["true", "1", "yes"].includes(v)),
]);

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const stringList = z.union([
  z.array(z.string()),
  z.string().transform((v) =>
    v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  ),
]);

/**
 * Every configuration key, its type and its default. The one source for the
 * loader, the environment names (ATTIC_<SECTION>_<KEY>) and config.example.toml.
 */
export const configSchema = z.object({
  server: z
    .object({
      /** Listen address (0.0.0.0: every IPv4 interface; :: for IPv6 too). */
      host: z.string().min(1).default("0.0.0.0"),
      /** Listen port for REST, RPC and the web UI (0 picks a free one). */
      port: int(0, 65535).default(8080),
      /** Take the client address from X-Forwarded-For, its last entry (only behind one reverse proxy you control). */
      trust_proxy: bool.default(false),
      /** Origins allowed to call the API from a browser (CORS); others get no Allow-Origin. */
      cors_origins: stringList.default([]),
      /** PEM certificate file; with tls_key, the port serves TLS (h2 and http/1.1 by ALPN). */
      tls_cert: z.string().optional(),
      /** PEM private key file of tls_cert. */
      tls_key: z.string().optional(),
      /** Largest JSON body accepted, bytes. */
      max_json_bytes: int(1024, 64 * 1024 * 1024).default(1024 * 1024),
      /** Largest request header block, bytes. */
      max_header_bytes: int(1024, 1024 * 1024).default(16 * 1024),
      /** Time allowed to receive a request's headers. */
      headers_timeout: duration.default(20),
      /** A socket idle (no bytes either way) this long is closed. */
      idle_timeout: duration.default(120),
      /** Time allowed for in-flight requests to finish on shutdown. */
      shutdown_timeout: duration.default(10),
    })
    .strict()
    .prefault({}),
  storage: z
    .object({
      /** Database, stored files and signing keys. */
      data_dir: z.string().min(1).default("./data"),
      /** Largest upload in bytes; larger answers 413 (0: no limit). */
      max_upload_bytes: int(0, Number.MAX_SAFE_INTEGER).default(0),
      /**
       * Bytes uploads leave free on the data directory's file system; an upload that
       * would cross it answers 507 (0: none kept; the disk may fill to its last byte).
       */
      min_free_bytes: int(0, Number.MAX_SAFE_INTEGER).default(256 * 1024 * 1024),
      /**
       * Hours an unfinished resumable (tus) upload is kept after its last bytes arrived (each
       * PATCH extends it); its bytes are removed after. Fractions allowed (0.5: half an hour).
       */
      resumable_upload_expiry_hours: z.coerce
        .number()
        .min(0.001)
        .max(24 * 365)
        .default(24),
      /** Most items one copy may create (a directory with its subtree); more answers 400. */
      max_copy_items: int(1, 10_000_000).default(50_000),
      /** Longest path in the tree, in characters ("/" separators included); longer answers 400. */
      max_path_length: int(255, 65_536).default(4096),
      /** Deepest nesting of the tree (a top-level item is at depth 1); deeper answers 400. */
      max_depth: int(8, 10_000).default(256),
    })
    .strict()
    .prefault({}),
  auth: z
    .object({
      /** Password of the first admin; unset: a random one, logged once and written to DATA_DIR/initial-admin-password. */
      initial_admin_password: z.string().min(1).optional(),
      /** Open self-registration (POST /api/v1/auth/register answers 403 when off). */
      registration_enabled: bool.default(false),
      /** Lifetime of access tokens (JWT). */
      access_token_ttl: duration.default(15 * 60),
      /** Lifetime of refresh tokens. */
      refresh_token_ttl: duration.default(7 * 86400),
      /** RS256 private key (PEM, RSA 4096+); unset: a pair generated in DATA_DIR/keys/. */
      private_key_file: z.string().optional(),
      /** RS256 public key (PEM) of private_key_file. */
      public_key_file: z.string().optional(),
      /** API keys one user may hold. */
      max_api_keys_per_user: int(0, 10_000).default(10),
      /** argon2id memory cost in KiB (OWASP: 19456 with 2 passes). */
      password_hash_memory_kib: int(1024, 4 * 1024 * 1024).default(19456),
      /** argon2id passes. */
      password_hash_iterations: int(1, 100).default(2),
    })
    .strict()
    .prefault({}),
  rate_limit: z
    .object({
      /** Rate limiting on or off. */
      enabled: bool.default(true),
      /** Requests per minute per client address (unauthenticated traffic). */
      global_per_minute: int(1, 10_000_000).default(100),
      /** Login and register attempts per minute per client address, together. */
      login_per_minute: int(1, 10_000_000).default(5),
      /** Other auth endpoint calls (refresh, logout, ...) per minute per client address. */
      auth_per_minute: int(1, 10_000_000).default(10),
      /** Requests per minute per authenticated user. */
      user_per_minute: int(1, 10_000_000).default(1000),
      /**
       * Media requests per minute per authenticated user: streams, ranges
       * (also through a stream token) and thumbnails. A budget apart from
       * user_per_minute, so scrubbing a video or scrolling a photo grid never
       * starves the API, and a busy API never stops a playing video.
       */
      media_per_minute: int(1, 10_000_000).default(20_000),
      /** Most distinct clients remembered per limiter; the oldest are forgotten first. */
      max_tracked_clients: int(100, 10_000_000).default(100_000),
    })
    .strict()
    .prefault({}),
  log: z
    .object({
      /** Log level; logs are JSON lines on stderr. */
      level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
    })
    .strict()
    .prefault({}),
  media: z
    .object({
      /** ffmpeg executable (thumbnails of videos); the server runs without it. */
      ffmpeg_path: z.string().default("ffmpeg"),
      /** ffprobe executable (media metadata); the server runs without it. */
      ffprobe_path: z.string().default("ffprobe"),
      /** Disk space for thumbnails (DATA_DIR/thumbnails); the least recently used go first. */
      thumbnail_cache_max_bytes: int(1024 * 1024, Number.MAX_SAFE_INTEGER).default(1024 * 1024 * 1024),
      /**
       * Longest time (seconds) one image thumbnail may take to make; an image taking longer is
       * refused (413), so one crafted or huge image cannot hold the image library's threads.
       */
      thumbnail_timeout_seconds: int(1, 3600).default(20),
      /** Video/audio conversions (HLS remux or transcode) running at once; more wait or get 503. */
      max_transcodes: int(1, 64).default(2),
      /** A conversion nobody has asked a segment of for this long (seconds) is stopped. */
      transcode_idle_seconds: int(10, 3600).default(60),
      /** Disk space for conversions' segments (DATA_DIR/transcodes); the segments furthest behind their players go first. */
      transcode_cache_max_bytes: int(64 * 1024 * 1024, Number.MAX_SAFE_INTEGER).default(
        10 * 1024 * 1024 * 1024,
      ),
      /** Hardware H.264 encoder for transcodes: none (libx264), vaapi (/dev/dri/renderD128), qsv or nvenc. */
      hwaccel: z.enum(["none", "vaapi", "qsv", "nvenc"]).default("none"),
    })
    .strict()
    .prefault({}),
  watch: z
    .object({
      /** Names never indexed in watched folders. */
      exclude: stringList.default([
        "@eaDir",
        "#recycle",
        ".stversions",
        "lost+found",
        "$RECYCLE.BIN",
        ".Trash-*",
      ]),
      /** Index names starting with a dot in watched folders. */
      include_dotfiles: bool.default(false),
      /** Rescan interval when live watching is unavailable. */
      poll_interval: duration.default(300),
      /** Debounce window for file-system events. */
      debounce: duration.default(2),
      /**
       * A full rescan (stat every file) of each watched folder this often (0: never).
       * Live watching and quick rescans see names appear and go, but not an
       * in-place edit that keeps the name and the directory's mtime; a full
       * rescan does, at the cost of one stat per file.
       */
      full_rescan_interval: duration.default(24 * 3600),
      /** Watch folders live (one inotify watch per directory); false: always rescan every poll_interval. */
      live: bool.default(true),
      /** Host files hashed at once in the background (0: never hash watched files). */
      hash_concurrency: int(0, 16).default(1),
      /**
       * Host directories watched folders may lie in (absolute paths). Empty:
       * anywhere but the system directories and the data dir. When set, every
       * watched folder and path suggestion must resolve inside one of them.
       */
      allowed_roots: stringList
        .default([])
        .refine((l) => l.every((p) => p.startsWith("/") && !p.split("/").includes("..")), {
          message: "every allowed root must be an absolute path without '..'",
        }),
    })
    .strict()
    .prefault({}),
});

export type ConfigInput = z.input<typeof configSchema>;
export type Config = Readonly<z.output<typeof configSchema>>;

/** One configuration key: its section, name and zod schema (default included). */
export interface ConfigKey {
  section: string;
  key: string;
  schema: z.ZodType;
}

/** Every key of configSchema in declaration order. */
export function configKeys(): ConfigKey[] {
  return Object.entries(configSchema.shape).flatMap(([section, outer]) => {
    const inner = (outer as unknown as { unwrap(): z.ZodObject }).unwrap();
    return Object.entries(inner.shape).map(([key, schema]) => ({
      section,
      key,
      schema: schema as z.ZodType,
    }));
  });
}

/** Keys whose values are masked wherever settings are shown. */
export const SECRET_KEYS = new Set(["auth.initial_admin_password"]);
