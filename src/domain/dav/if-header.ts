/**
 * The WebDAV `If` header (RFC 4918 §10.4): lists of conditions, each list
 * optionally tagged with the resource it is about. A condition is a state
 * token (`<opaquelocktoken:…>`, `<DAV:no-lock>`) or an entity tag
 * (`["etag"]`), possibly negated with `Not`. The header holds when any list
 * holds; a list holds when all of its conditions do.
 */
export interface IfCondition {
  not: boolean;
  token?: string;
  etag?: string;
}
export interface IfList {
  /** The tagged resource's URL (absolute or a path); absent: the request's resource. */
  resource?: string;
  conditions: IfCondition[];
}

/** Parses an If header; undefined when it is malformed (answered 400). */
export function parseIf(header: string): IfList[] | undefined {
  const lists: IfList[] = [];
  let i = 0;
  let tag: string | undefined;
  const s = header;
  const skip = () => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  while (true) {
    skip();
    if (i >= s.length) break;
    if (s[i] === "<") {
      const end = s.indexOf(">", i);
      if (end < 0) return undefined;
      tag = s.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (s[i] !== "(") return undefined;
    i++;
    const conditions: IfCondition[] = [];
    while (true) {
      skip();
      if (i >= s.length) return undefined;
      if (s[i] === ")") {
        i++;
        break;
      }
      let not = false;
      if (s.slice(i, i + 3).toLowerCase() === "not") {
        not = true;
        i += 3;
        skip();
      }
      if (s[i] === "<") {
        const end = s.indexOf(">", i);
        if (end < 0) return undefined;
        conditions.push({ not, token: s.slice(i + 1, end) });
        i = end + 1;
      } else if (s[i] === "[") {
        const end = s.indexOf("]", i);
        if (end < 0) return undefined;
        conditions.push({ not, etag: s.slice(i + 1, end).trim() });
        i = end + 1;
      } else return undefined;
    }
    if (conditions.length === 0) return undefined;
    lists.push({ ...(tag !== undefined ? { resource: tag } : {}), conditions });
  }
  return lists.length > 0 ? lists : undefined;
}

/** Every state token the header names (they are "submitted" for lock checks). */
export function tokensOf(lists: readonly IfList[]): string[] {
  return lists.flatMap((l) => l.conditions.flatMap((c) => (c.token && !c.not ? [c.token] : [])));
}

/**
 * Whether the header holds. `stateOf(resource)` gives a resource's current
 * entity tag and the lock tokens that apply to it (undefined resource: the
 * request's own).
 */
export function ifHolds(
  lists: readonly IfList[],
  stateOf: (resource: string | undefined) => { etag?: string; tokens: readonly string[] },
): boolean {
  const weakless = (e: string) => e.replace(/^W\//, "");
  return lists.some((list) => {
    const state = stateOf(list.resource);
    return list.conditions.every((c) => {
      const met =
        c.token !== undefined
          ? state.tokens.includes(c.token)
          : state.etag !== undefined && weakless(state.etag) === weakless(c.etag ?? "");
      return c.not ? !met : met;
    });
  });
}

/**
 * RFC 9110 13.1.1-2 for a request that changes state: If-Match holds when
 * the resource exists (`*`) or has one of the entity tags (strong
 * comparison); If-None-Match when it does not exist (`*`) or has none of
 * them (weak comparison). Absent headers hold. `etag` is undefined for a
 * resource without one (the top) or a missing one.
 */
export function matchHolds(
  ifMatch: string | undefined,
  ifNoneMatch: string | undefined,
  current: { exists: boolean; etag?: string | undefined },
): boolean {
  const tagsOf = (h: string): string[] => h.match(/\*|(?:W\/)?"[^"]*"/g) ?? [];
  const weakless = (t: string) => t.replace(/^W\//, "");
  const { exists, etag } = current;
  if (ifMatch !== undefined) {
    const tags = tagsOf(ifMatch);
    const ok = tags.includes("*")
      ? exists
      : etag !== undefined && !etag.startsWith("W/") && tags.includes(etag);
    if (!ok) return false;
  }
  if (ifNoneMatch !== undefined) {
    const tags = tagsOf(ifNoneMatch);
    const hit = tags.includes("*")
      ? exists
      : etag !== undefined && tags.some((t) => weakless(t) === weakless(etag));
    if (hit) return false;
  }
  return true;
}
