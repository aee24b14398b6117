/**
 * When the user last ended all their sessions (logout-all, deactivation, a
 * password reset by an admin): bearer and stream tokens issued before it stop
 * at once, as they already do after a password change.
 */
export default /* sql */ `
ALTER TABLE users ADD COLUMN sessions_revoked_at TEXT;
`;
