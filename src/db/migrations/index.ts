import m0001 from "./0001_init.ts";
import m0002 from "./0002_search_name_index.ts";
import m0003 from "./0003_member_settings_write.ts";
import m0004 from "./0004_unique_org_names.ts";
import m0005 from "./0005_sessions_revoked_at.ts";
import m0006 from "./0006_watched_root_device.ts";
import m0007 from "./0007_folder_grants.ts";
import m0008 from "./0008_dav_properties.ts";
import m0009 from "./0009_shares.ts";
import m0010 from "./0010_live_name_case.ts";
import m0011 from "./0011_search_index.ts";
import m0012 from "./0012_files_acl_index.ts";
import m0013 from "./0013_children_order_index.ts";
import m0014 from "./0014_search_deferred_index.ts";
import m0015 from "./0015_files_live_size_index.ts";
import m0016 from "./0016_children_index_acl.ts";
import m0017 from "./0017_fts_update_when_changed.ts";
import m0018 from "./0018_files_live_order_indexes.ts";
import m0019 from "./0019_subtree_jobs.ts";
import m0020 from "./0020_files_parent_index.ts";
import m0021 from "./0021_files_live_size_buckets.ts";
import m0022 from "./0022_files_live_name_parent.ts";
import m0023 from "./0023_fts_indexed_where_inserted.ts";
import m0024 from "./0024_name_letters.ts";
import m0025 from "./0025_watched_dir_inode.ts";

/**
 * Every migration, in order, embedded as text so the single executable
 * carries them. Append new ones; never edit one that has shipped.
 */
export const MIGRATIONS: readonly { id: number; name: string; sql: string }[] = [
  { id: 1, name: "init", sql: m0001 },
  { id: 2, name: "search_name_index", sql: m0002 },
  { id: 3, name: "member_settings_write", sql: m0003 },
  { id: 4, name: "unique_org_names", sql: m0004 },
  { id: 5, name: "sessions_revoked_at", sql: m0005 },
  { id: 6, name: "watched_root_device", sql: m0006 },
  { id: 7, name: "folder_grants", sql: m0007 },
  { id: 8, name: "dav_properties", sql: m0008 },
  { id: 9, name: "shares", sql: m0009 },
  { id: 10, name: "live_name_case", sql: m0010 },
  { id: 11, name: "search_index", sql: m0011 },
  { id: 12, name: "files_acl_index", sql: m0012 },
  { id: 13, name: "children_order_index", sql: m0013 },
  { id: 14, name: "search_deferred_index", sql: m0014 },
  { id: 15, name: "files_live_size_index", sql: m0015 },
  { id: 16, name: "children_index_acl", sql: m0016 },
  { id: 17, name: "fts_update_when_changed", sql: m0017 },
  { id: 18, name: "files_live_order_indexes", sql: m0018 },
  { id: 19, name: "subtree_jobs", sql: m0019 },
  { id: 20, name: "files_parent_index", sql: m0020 },
  { id: 21, name: "files_live_size_buckets", sql: m0021 },
  { id: 22, name: "files_live_name_parent", sql: m0022 },
  { id: 23, name: "fts_indexed_where_inserted", sql: m0023 },
  { id: 24, name: "name_letters", sql: m0024 },
  { id: 25, name: "watched_dir_inode", sql: m0025 },
];
