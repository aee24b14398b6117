/**
 * Drizzle table definitions: the one picture of the database that queries use.
 * The one place the structure is authored: `npm run db:sql` prints the DDL
 * drizzle-kit generates from it, which new migrations in ./migrations copy
 * (full-text tables and triggers, outside drizzle's model, are written there
 * by hand). test/db/schema.test.ts fails when the migrated database differs
 * from that DDL in any column, default, key or index.
 *
 * Conventions: ids are UUIDv7 text; timestamps are ISO 8601 UTC text (they
 * sort as text); booleans are 0/1 integers; permission lists are JSON arrays.
 */
import { sql } from "drizzle-orm";
import {
  type AnySQLiteColumn,
  foreignKey,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { sizeBucket } from "./size-bucket.ts";

const timestamps = {
  created_at: text("created_at").notNull(),
  updated_at: text("updated_at").notNull(),
};

export const organizations = sqliteTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    ...timestamps,
  },
  // Names are unique case-insensitively (migration 0004).
  (t) => [uniqueIndex("organizations_name_unique").on(sql`lower(${t.name})`)],
);

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    username: text("username").notNull(),
    email: text("email").notNull(),
    display_name: text("display_name"),
    password_hash: text("password_hash").notNull(),
    is_active: integer("is_active", { mode: "boolean" }).notNull().default(true),
    /** May manage every organization of the instance (the first admin). */
    is_instance_admin: integer("is_instance_admin", { mode: "boolean" }).notNull().default(false),
    must_change_password: integer("must_change_password", { mode: "boolean" }).notNull().default(false),
    password_changed_at: text("password_changed_at"),
    /** Tokens issued before this (logout-all, deactivation, reset) stop working. */
    sessions_revoked_at: text("sessions_revoked_at"),
    last_login_at: text("last_login_at"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("users_username_uq").on(sql`${t.username} COLLATE NOCASE`),
    uniqueIndex("users_email_uq").on(sql`${t.email} COLLATE NOCASE`),
    index("users_org_idx").on(t.organization_id),
  ],
);

export const roles = sqliteTable(
  "roles",
  {
    id: text("id").primaryKey(),
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    permissions: text("permissions", { mode: "json" }).$type<string[]>().notNull(),
    is_builtin: integer("is_builtin", { mode: "boolean" }).notNull().default(false),
    ...timestamps,
  },
  (t) => [uniqueIndex("roles_org_name_uq").on(t.organization_id, sql`${t.name} COLLATE NOCASE`)],
);

export const userRoles = sqliteTable(
  "user_roles",
  {
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role_id: text("role_id")
      .notNull()
      .references(() => roles.id, { onDelete: "cascade" }),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.role_id] }), index("user_roles_role_idx").on(t.role_id)],
);

export const groups = sqliteTable(
  "groups",
  {
    id: text("id").primaryKey(),
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    ...timestamps,
  },
  (t) => [uniqueIndex("groups_org_name_uq").on(t.organization_id, sql`${t.name} COLLATE NOCASE`)],
);

export const groupMembers = sqliteTable(
  "group_members",
  {
    group_id: text("group_id")
      .notNull()
      .references(() => groups.id, { onDelete: "cascade" }),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.group_id, t.user_id] }), index("group_members_user_idx").on(t.user_id)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 of the secret (the secret is high-entropy, so a fast hash is right). */
    key_hash: text("key_hash").notNull().unique(),
    /** First characters of the key, shown in lists so users can tell keys apart. */
    prefix: text("prefix").notNull(),
    permissions: text("permissions", { mode: "json" }).$type<string[]>().notNull(),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at"),
    last_used_at: text("last_used_at"),
    revoked_at: text("revoked_at"),
  },
  (t) => [index("api_keys_user_idx").on(t.user_id)],
);

export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    /** The token's `jti`. */
    id: text("id").primaryKey(),
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Every token descended from one login shares a family; reuse revokes the family. */
    family_id: text("family_id").notNull(),
    token_hash: text("token_hash").notNull().unique(),
    created_at: text("created_at").notNull(),
    expires_at: text("expires_at").notNull(),
    used_at: text("used_at"),
    revoked_at: text("revoked_at"),
  },
  (t) => [index("refresh_tokens_user_idx").on(t.user_id), index("refresh_tokens_family_idx").on(t.family_id)],
);

/** Stored content, addressed by SHA-256; many files may share one blob. */
export const blobs = sqliteTable("blobs", {
  hash: text("hash").primaryKey(),
  size: integer("size").notNull(),
  created_at: text("created_at").notNull(),
});

export const watchedFolders = sqliteTable(
  "watched_folders",
  {
    id: text("id").primaryKey(),
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Absolute, real (symlink-resolved) host directory. */
    path: text("path").notNull(),
    /** The directory row that mounts this folder in the tree. */
    directory_id: text("directory_id"),
    created_by: text("created_by"),
    /** idle | scanning | watching | polling | offline | error */
    status: text("status").notNull().default("idle"),
    status_message: text("status_message"),
    files_seen: integer("files_seen").notNull().default(0),
    files_indexed: integer("files_indexed").notNull().default(0),
    scan_errors: integer("scan_errors").notNull().default(0),
    scan_rate: real("scan_rate").notNull().default(0),
    last_scan_started_at: text("last_scan_started_at"),
    last_scan_finished_at: text("last_scan_finished_at"),
    /** Device id (st_dev) of the host root when last scanned with content. */
    root_device: text("root_device"),
    /** Whether the host root was a mount point then (its device differed from its parent's). */
    root_was_mount: integer("root_was_mount", { mode: "boolean" }),
    ...timestamps,
  },
  (t) => [index("watched_folders_org_idx").on(t.organization_id)],
);

/**
 * Files and directories of every organization's tree. A row is backed either
 * by a blob (`blob_hash`) or by a host file of a watched folder
 * (`watched_folder_id` + `host_rel_path`).
 */
export const files = sqliteTable(
  "files",
  {
    id: text("id").primaryKey(),
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    owner_id: text("owner_id"),
    parent_id: text("parent_id").references((): AnySQLiteColumn => files.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** "/"-joined names from the top of the organization's tree. */
    path: text("path").notNull(),
    /** file | directory | symlink */
    type: text("type").notNull(),
    size: integer("size").notNull().default(0),
    mime_type: text("mime_type").notNull(),
    /** Lowercase hex SHA-256 of the content; "" until known (watched files hash lazily). */
    hash: text("hash").notNull().default(""),
    blob_hash: text("blob_hash"),
    watched_folder_id: text("watched_folder_id").references(() => watchedFolders.id, { onDelete: "cascade" }),
    /** Path relative to the watched folder's root. */
    host_rel_path: text("host_rel_path"),
    /** Host file mtime (ms) at last index; lets rescans skip unchanged files. */
    host_mtime_ms: integer("host_mtime_ms"),
    /** A watched directory's "device:inode" at its last read (migration 0025): how a host rename is told from a new folder. */
    host_inode: text("host_inode"),
    /** The host drive is absent: kept, but not servable. */
    is_offline: integer("is_offline", { mode: "boolean" }).notNull().default(false),
    is_deleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    deleted_at: text("deleted_at"),
    /** Rows soft-deleted by one delete share this id, so restore brings back exactly them. */
    delete_batch: text("delete_batch"),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
    accessed_at: text("accessed_at").notNull(),
    /** The nearest access root at or above the row (itself when it is one); null = the top's list. */
    acl_id: text("acl_id"),
    /** Set on a personal folder: whose it is. */
    home_of: text("home_of"),
  },
  (t) => [
    uniqueIndex("files_live_name_uq")
      .on(
        t.organization_id,
        sql`(CASE WHEN ${t.parent_id} IS NOT NULL THEN ${t.parent_id} WHEN ${t.home_of} IS NOT NULL THEN 'home:' || ${t.home_of} ELSE '' END)`,
        t.name,
      )
      .where(sql`${t.is_deleted} = 0`),
    index("files_children_idx").on(
      t.organization_id,
      t.parent_id,
      t.is_deleted,
      sql`(${t.type} = 'directory') DESC`,
      sql`${t.name} COLLATE NOCASE`,
      t.name,
      t.acl_id,
    ),
    index("files_path_idx").on(t.organization_id, t.path),
    index("files_live_name_idx").on(
      t.organization_id,
      t.is_deleted,
      sql`${t.name} COLLATE NOCASE`,
      t.parent_id,
    ),
    index("files_live_size_idx")
      .on(t.organization_id, t.size)
      .where(sql`${t.is_deleted} = 0 AND ${t.size} >= 104857600`),
    // Every live row by a bucket of its size (migration 0021, search.query.ts SIZE_BUCKET).
    index("files_live_size_bucket_idx")
      .on(t.organization_id, sql.raw(sizeBucket("size")))
      .where(sql`${t.is_deleted} = 0`),
    index("files_live_updated_idx").on(t.organization_id, t.updated_at).where(sql`${t.is_deleted} = 0`),
    index("files_live_created_idx").on(t.organization_id, t.created_at).where(sql`${t.is_deleted} = 0`),
    index("files_live_length_idx")
      .on(t.organization_id, sql`length(${t.name})`)
      .where(sql`${t.is_deleted} = 0`),
    index("files_live_dirs_idx")
      .on(t.organization_id, sql`${t.name} COLLATE NOCASE`)
      .where(sql`${t.is_deleted} = 0 AND ${t.type} = 'directory'`),
    // The self-reference's cascade looks up children by parent alone on every delete (migration 0020).
    index("files_parent_idx").on(t.parent_id),
    index("files_blob_idx").on(t.blob_hash),
    index("files_watched_idx").on(t.watched_folder_id, t.host_rel_path),
    index("files_watched_inode_idx")
      .on(t.watched_folder_id, t.host_inode)
      .where(sql`${t.host_inode} IS NOT NULL`),
    index("files_deleted_idx").on(t.organization_id, t.is_deleted, t.deleted_at),
    uniqueIndex("files_home_uq").on(t.home_of).where(sql`${t.home_of} IS NOT NULL`),
    index("files_acl_idx").on(t.acl_id).where(sql`${t.acl_id} IS NOT NULL`),
  ],
);

/**
 * A change to the rows below `root_id` still being made, a folder at a time
 * (migration 0019, src/domain/files/subtree-jobs.ts): `kind` move (with
 * `reassign`, rows governed by `from_acl` take `to_acl`), delete or restore
 * (of delete batch `batch`, stamped `at`), or purge.
 */
export const subtreeJobs = sqliteTable("subtree_jobs", {
  root_id: text("root_id")
    .primaryKey()
    .notNull()
    .references(() => files.id, { onDelete: "cascade" }),
  organization_id: text("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  kind: text("kind").notNull(),
  reassign: integer("reassign", { mode: "boolean" }).notNull().default(false),
  from_acl: text("from_acl"),
  to_acl: text("to_acl"),
  batch: text("batch"),
  at: text("at"),
  started_at: text("started_at").notNull(),
});

/** Folders with a grant list of their own ("access roots"); folder_id "" is the organization's top. */
export const accessLists = sqliteTable(
  "access_lists",
  {
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    folder_id: text("folder_id").notNull(),
    /** Set on a personal folder and every access root inside one: that user always manages it. */
    home_user_id: text("home_user_id"),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.folder_id] })],
);

/** One grant of an access root: a user, a group or everyone, at level 1 read, 2 write, 3 manage. */
export const folderGrants = sqliteTable(
  "folder_grants",
  {
    organization_id: text("organization_id").notNull(),
    folder_id: text("folder_id").notNull(),
    /** user | group | everyone */
    subject_type: text("subject_type").notNull(),
    /** The user or group id; "" for everyone. */
    subject_id: text("subject_id").notNull(),
    level: integer("level").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.folder_id, t.subject_type, t.subject_id] }),
    foreignKey({
      columns: [t.organization_id, t.folder_id],
      foreignColumns: [accessLists.organization_id, accessLists.folder_id],
    }).onDelete("cascade"),
    index("folder_grants_subject_idx").on(t.subject_type, t.subject_id),
  ],
);

export const tags = sqliteTable(
  "tags",
  {
    id: text("id").primaryKey(),
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    color: text("color").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("tags_org_name_uq").on(t.organization_id, sql`${t.name} COLLATE NOCASE`)],
);

export const fileTags = sqliteTable(
  "file_tags",
  {
    file_id: text("file_id")
      .notNull()
      .references(() => files.id, { onDelete: "cascade" }),
    tag_id: text("tag_id")
      .notNull()
      .references(() => tags.id, { onDelete: "cascade" }),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.file_id, t.tag_id] }), index("file_tags_tag_idx").on(t.tag_id)],
);

export const playbackPositions = sqliteTable(
  "playback_positions",
  {
    user_id: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    file_id: text("file_id")
      .notNull()
      .references(() => files.id, { onDelete: "cascade" }),
    organization_id: text("organization_id").notNull(),
    position_seconds: real("position_seconds").notNull(),
    duration_seconds: real("duration_seconds").notNull(),
    last_updated: text("last_updated").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.user_id, t.file_id] }),
    index("playback_user_updated_idx").on(t.user_id, t.last_updated),
  ],
);

/** Application settings (user_id "") and per-user settings, as JSON values. */
export const settings = sqliteTable(
  "settings",
  {
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    user_id: text("user_id").notNull().default(""),
    key: text("key").notNull(),
    value: text("value", { mode: "json" }).notNull(),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.user_id, t.key] })],
);

/** WebDAV dead properties (PROPPATCH) of a file or directory: the client's XML, by namespace and name. */
export const davProperties = sqliteTable(
  "dav_properties",
  {
    file_id: text("file_id")
      .notNull()
      .references(() => files.id, { onDelete: "cascade" }),
    ns: text("ns").notNull(),
    name: text("name").notNull(),
    xml: text("xml").notNull(),
  },
  (t) => [primaryKey({ columns: [t.file_id, t.ns, t.name] })],
);

/** Share links: a file or folder reachable at /s/<token> without an account (only the token's hash is kept). */
export const shares = sqliteTable(
  "shares",
  {
    id: text("id").primaryKey(),
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    created_by: text("created_by")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    file_id: text("file_id")
      .notNull()
      .references(() => files.id, { onDelete: "cascade" }),
    token_hash: text("token_hash").notNull().unique(),
    password_hash: text("password_hash"),
    expires_at: text("expires_at"),
    max_downloads: integer("max_downloads"),
    download_count: integer("download_count").notNull().default(0),
    /** A drop folder: people with the link may upload into the shared folder. */
    allow_upload: integer("allow_upload", { mode: "boolean" }).notNull().default(false),
    created_at: text("created_at").notNull(),
    last_accessed_at: text("last_accessed_at"),
  },
  (t) => [index("shares_org_idx").on(t.organization_id, t.created_by)],
);

/**
 * Which organizations have names the search's tests in SQL must cover
 * (migration 0024): `kind` "rare" (a letter of Latin Extended-B or
 * Additional) or "marks" (a combining mark: a name stored decomposed).
 */
export const orgNameLetters = sqliteTable(
  "org_name_letters",
  {
    organization_id: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.kind] })],
);
