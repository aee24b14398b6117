/**
 * Share links (issue 16): a file or folder reachable without an account at
 * /s/<token>. Only the token's SHA-256 is stored (the link is shown once, at
 * creation); an optional password as an Argon2 hash. A share acts as its
 * creator, read-only: it dies with the creator's right to read its target.
 */
export default /* sql */ `
CREATE TABLE shares (
  id TEXT PRIMARY KEY NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  created_by TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  password_hash TEXT,
  expires_at TEXT,
  max_downloads INTEGER,
  download_count INTEGER NOT NULL DEFAULT 0,
  allow_upload INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  last_accessed_at TEXT
);
CREATE INDEX shares_org_idx ON shares(organization_id, created_by);
`;
