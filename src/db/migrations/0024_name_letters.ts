/**
 * Which organizations have names the search's tests in SQL must take care
 * of (issue 14): `rare`, a letter of Latin Extended-B or Latin Extended
 * Additional (Vietnamese: ơ, ư, ộ, ế), which the index folds as it folds
 * "é"; `marks`, a combining mark (U+0300-U+036F: a name stored decomposed,
 * NFD, as some macOS clients write names). The tests of terms in SQL
 * (search.query.ts, search.contains.ts) put rare letters in their classes
 * and try a pattern beginning with them, and test decomposed names in
 * JavaScript, only where this table says the organization has such names:
 * always, the rare letters alone cost `mkv` 26 → 36 ms and `photos` 20 → 27
 * on the bench's 1M library, which holds none (in process, median of 3).
 * Before this, those tests missed them: `hike noi` found none of the 1,559
 * files under folders named "hike Hà Nội" on the other bench tree.
 *
 * Rows reach it where names do: inserted rows with the search index
 * (src/db/search-index.ts), renamed ones by the trigger below (it fires
 * only for updates that set a name). A row is never taken away: a name
 * deleted or renamed since only costs that organization the extra tests.
 */
// char(768, 45, 879): "[U+0300-U+036F]", the combining marks, which print as nothing on their own.
export default /* sql */ `
CREATE TABLE org_name_letters (
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  PRIMARY KEY (organization_id, kind)
);
INSERT OR IGNORE INTO org_name_letters
  SELECT DISTINCT organization_id, 'rare' FROM files WHERE name GLOB '*[ƀ-ɏḀ-ỿ]*';
INSERT OR IGNORE INTO org_name_letters
  SELECT DISTINCT organization_id, 'marks' FROM files WHERE name GLOB '*[' || char(768, 45, 879) || ']*';
CREATE TRIGGER files_name_letters_au AFTER UPDATE OF name ON files
WHEN new.name GLOB '*[ƀ-ɏḀ-ỿ]*' OR new.name GLOB '*[' || char(768, 45, 879) || ']*'
BEGIN
  INSERT OR IGNORE INTO org_name_letters (organization_id, kind)
    SELECT new.organization_id, 'rare' WHERE new.name GLOB '*[ƀ-ɏḀ-ỿ]*'
    UNION ALL SELECT new.organization_id, 'marks' WHERE new.name GLOB '*[' || char(768, 45, 879) || ']*';
END;
`;
