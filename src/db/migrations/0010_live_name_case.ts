/**
 * The live-name unique index, rewritten without commas inside its expression
 * (same rule: one live name per directory, per personal-folder top, or at the
 * top). drizzle-kit, which generates the DDL from db/schema.ts
 * (`npm run db:sql`), splits an index expression at its commas; this form it
 * writes back intact, so the schema test can compare the two.
 */
export default /* sql */ `
DROP INDEX files_live_name_uq;
CREATE UNIQUE INDEX files_live_name_uq ON files(organization_id, (CASE WHEN parent_id IS NOT NULL THEN parent_id WHEN home_of IS NOT NULL THEN 'home:' || home_of ELSE '' END), name) WHERE is_deleted = 0;
`;
