/**
 * Two organizations may not share a name (case-insensitive): the name is how
 * people and the instance admin tell tenants apart. Names already shared are
 * kept unique by suffixing all but the oldest with a piece of their id.
 */
export default /* sql */ `
UPDATE organizations SET name = name || ' (' || substr(id, -6) || ')'
WHERE EXISTS (
  SELECT 1 FROM organizations o
  WHERE lower(o.name) = lower(organizations.name)
    AND (o.created_at < organizations.created_at OR (o.created_at = organizations.created_at AND o.id < organizations.id))
);
CREATE UNIQUE INDEX organizations_name_unique ON organizations(lower(name));
`;
