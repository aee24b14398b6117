/**
 * Writing one's own settings now needs `settings:write` (a `file:read` API key
 * could write them before): the built-in Member role gains it, unless it
 * already holds it or a wildcard covering it.
 */
export default /* sql */ `
UPDATE roles SET permissions = json_insert(permissions, '$[#]', 'settings:write')
WHERE is_builtin = 1 AND name = 'Member'
  AND NOT EXISTS (
    SELECT 1 FROM json_each(roles.permissions)
    WHERE value IN ('settings:write', 'settings:*', '*:write', '*:*')
  );
`;
