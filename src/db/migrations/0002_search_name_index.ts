/**
 * Live files of an organization in name order (case-insensitive, as search
 * sorts them). Lets a search whose words match a large share of the library
 * walk names in order and stop after one page, instead of reading and sorting
 * every match (see src/domain/search/search.repo.ts).
 */
export default /* sql */ `
CREATE INDEX files_live_name_idx ON files(organization_id, is_deleted, name COLLATE NOCASE);
`;
