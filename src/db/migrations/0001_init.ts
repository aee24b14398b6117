/** The initial schema. Mirrors ../schema.ts; test/db/schema.test.ts checks they agree. */
export default /* sql */ `
CREATE TABLE organizations (
  id TEXT PRIMARY KEY NOT NULL,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  username TEXT NOT NULL,
  email TEXT NOT NULL,
  display_name TEXT,
  password_hash TEXT NOT NULL,
  is_active INTEGER NOT NULL DEFAULT 1,
  is_instance_admin INTEGER NOT NULL DEFAULT 0,
  must_change_password INTEGER NOT NULL DEFAULT 0,
  password_changed_at TEXT,
  last_login_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX users_username_uq ON users(username COLLATE NOCASE);
CREATE UNIQUE INDEX users_email_uq ON users(email COLLATE NOCASE);
CREATE INDEX users_org_idx ON users(organization_id);

CREATE TABLE roles (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  permissions TEXT NOT NULL,
  is_builtin INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX roles_org_name_uq ON roles(organization_id, name COLLATE NOCASE);

CREATE TABLE user_roles (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role_id TEXT NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, role_id)
);
CREATE INDEX user_roles_role_idx ON user_roles(role_id);

CREATE TABLE groups (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX groups_org_name_uq ON groups(organization_id, name COLLATE NOCASE);

CREATE TABLE group_members (
  group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_members_user_idx ON group_members(user_id);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  permissions TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX api_keys_user_idx ON api_keys(user_id);

CREATE TABLE refresh_tokens (
  id TEXT PRIMARY KEY NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  family_id TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX refresh_tokens_user_idx ON refresh_tokens(user_id);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens(family_id);

CREATE TABLE blobs (
  hash TEXT PRIMARY KEY NOT NULL,
  size INTEGER NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE watched_folders (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  directory_id TEXT,
  created_by TEXT,
  status TEXT NOT NULL DEFAULT 'idle',
  status_message TEXT,
  files_seen INTEGER NOT NULL DEFAULT 0,
  files_indexed INTEGER NOT NULL DEFAULT 0,
  scan_errors INTEGER NOT NULL DEFAULT 0,
  scan_rate REAL NOT NULL DEFAULT 0,
  last_scan_started_at TEXT,
  last_scan_finished_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX watched_folders_org_idx ON watched_folders(organization_id);

CREATE TABLE files (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  owner_id TEXT,
  parent_id TEXT REFERENCES files(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('file', 'directory', 'symlink')),
  size INTEGER NOT NULL DEFAULT 0,
  mime_type TEXT NOT NULL,
  hash TEXT NOT NULL DEFAULT '',
  blob_hash TEXT,
  watched_folder_id TEXT REFERENCES watched_folders(id) ON DELETE CASCADE,
  host_rel_path TEXT,
  host_mtime_ms INTEGER,
  is_offline INTEGER NOT NULL DEFAULT 0,
  is_deleted INTEGER NOT NULL DEFAULT 0,
  deleted_at TEXT,
  delete_batch TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  accessed_at TEXT NOT NULL
);
CREATE UNIQUE INDEX files_live_name_uq ON files(organization_id, coalesce(parent_id, ''), name) WHERE is_deleted = 0;
CREATE INDEX files_parent_idx ON files(organization_id, parent_id, is_deleted, name);
CREATE INDEX files_path_idx ON files(organization_id, path);
CREATE INDEX files_blob_idx ON files(blob_hash);
CREATE INDEX files_watched_idx ON files(watched_folder_id, host_rel_path);
CREATE INDEX files_deleted_idx ON files(organization_id, is_deleted, deleted_at);

-- Search: trigram FTS over name and path, kept exact by triggers in the same
-- transaction as every change to files. Deleted rows stay indexed; queries
-- join files and filter is_deleted, so restore needs no re-index.
CREATE VIRTUAL TABLE files_fts USING fts5(
  name, path,
  content = 'files', content_rowid = 'rowid',
  tokenize = 'trigram remove_diacritics 1 case_sensitive 0'
);
CREATE TRIGGER files_fts_ai AFTER INSERT ON files BEGIN
  INSERT INTO files_fts(rowid, name, path) VALUES (new.rowid, new.name, new.path);
END;
CREATE TRIGGER files_fts_ad AFTER DELETE ON files BEGIN
  INSERT INTO files_fts(files_fts, rowid, name, path) VALUES ('delete', old.rowid, old.name, old.path);
END;
CREATE TRIGGER files_fts_au AFTER UPDATE OF name, path ON files BEGIN
  INSERT INTO files_fts(files_fts, rowid, name, path) VALUES ('delete', old.rowid, old.name, old.path);
  INSERT INTO files_fts(rowid, name, path) VALUES (new.rowid, new.name, new.path);
END;

CREATE TABLE tags (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  color TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX tags_org_name_uq ON tags(organization_id, name COLLATE NOCASE);

CREATE TABLE file_tags (
  file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (file_id, tag_id)
);
CREATE INDEX file_tags_tag_idx ON file_tags(tag_id);

CREATE TABLE playback_positions (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL,
  position_seconds REAL NOT NULL,
  duration_seconds REAL NOT NULL,
  last_updated TEXT NOT NULL,
  PRIMARY KEY (user_id, file_id)
);
CREATE INDEX playback_user_updated_idx ON playback_positions(user_id, last_updated);

CREATE TABLE settings (
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL DEFAULT '',
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (organization_id, user_id, key)
);
`;
