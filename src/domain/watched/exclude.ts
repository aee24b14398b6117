/**
 * Builds the test for names never indexed in watched folders: the configured
 * patterns (`*` matches any run of characters, e.g. `.Trash-*`), and names
 * starting with a dot unless dot-files are included.
 */
export function excluder(patterns: readonly string[], includeDotfiles: boolean): (name: string) => boolean {
  const exact = new Set<string>();
  const globs: RegExp[] = [];
  for (const p of patterns) {
    if (p.includes("*")) {
      const source = p.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
      globs.push(new RegExp(`^${source.join(".*")}$`));
    } else exact.add(p);
  }
  return (name) =>
    (!includeDotfiles && name.startsWith(".")) || exact.has(name) || globs.some((g) => g.test(name));
}
