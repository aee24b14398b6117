/**
 * Folder grants (issue 19, docs/access.md).
 *
 * - `access_lists`: the folders that carry their own grant list (an "access
 *   root"); folder_id '' is the organization's top. `home_user_id` is set on
 *   a personal folder and on every access root inside one: that user always
 *   manages it.
 * - `folder_grants`: who may do what on an access root: subject user, group
 *   or everyone ('everyone', subject_id ''); level 1 read, 2 write, 3 manage.
 * - `files.acl_id`: the nearest access root at or above the row (itself when
 *   it is one), null for rows under the top's list. Kept by the tree code on
 *   every insert, move and grant change, so every query checks a row's
 *   access with one column.
 * - `files.home_of`: the user whose personal folder the row is. Personal
 *   folders sit at the top beside the shared items but in a name space of
 *   their own, so the unique name index now keys them apart.
 */
export default /* sql */ `
ALTER TABLE files ADD COLUMN acl_id TEXT;
ALTER TABLE files ADD COLUMN home_of TEXT;
DROP INDEX files_live_name_uq;
CREATE UNIQUE INDEX files_live_name_uq ON files(organization_id, coalesce(parent_id, 'home:' || home_of, ''), name) WHERE is_deleted = 0;
CREATE UNIQUE INDEX files_home_uq ON files(home_of) WHERE home_of IS NOT NULL;

CREATE TABLE access_lists (
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  folder_id TEXT NOT NULL,
  home_user_id TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (organization_id, folder_id)
);

CREATE TABLE folder_grants (
  organization_id TEXT NOT NULL,
  folder_id TEXT NOT NULL,
  subject_type TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  level INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (organization_id, folder_id, subject_type, subject_id),
  FOREIGN KEY (organization_id, folder_id) REFERENCES access_lists(organization_id, folder_id) ON DELETE CASCADE
);
CREATE INDEX folder_grants_subject_idx ON folder_grants(subject_type, subject_id);
`;
