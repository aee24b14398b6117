import { invalid } from "../../errors.ts";

/** Longest name accepted, in UTF-8 bytes (the limit of common file systems). */
export const MAX_NAME_BYTES = 255;

// C0 controls, DEL and C1 controls: invisible, and some break headers or terminals.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

// Characters that make a name read as something else: bidi embeddings and
// overrides (U+202A–U+202E), bidi isolates (U+2066–U+2069), zero-width
// spaces and joiners (U+200B–U+200D), word joiner (U+2060) and the BOM
// (U+FEFF). "invoice\u202Efdp.exe" shows as "invoiceexe.pdf".
export const DECEPTIVE = /[\u200b-\u200d\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;

/**
 * Refuses (400, naming `field`) text that reads as something else or as
 * nothing: bidi controls, zero-width characters, the BOM, and whitespace
 * only. Shared by file, directory, organization and group names.
 */
export function assertVisibleName(name: string, field = "name"): void {
  if (DECEPTIVE.test(name)) {
    throw invalid(`${field} must not contain bidi controls or zero-width characters`, { field });
  }
  if (name.trim().length === 0) throw invalid(`${field} must not be only whitespace`, { field });
}

/**
 * Validates a file or directory name and returns it in Unicode NFC, so two
 * spellings of "é" cannot sit side by side as different names. Rejects (400)
 * empty names, `.`, `..`, names containing `/`, `\`, NUL or any control
 * character, bidi controls, zero-width characters or a BOM, names of only
 * whitespace, and names over 255 UTF-8 bytes.
 */
export function normalizeName(raw: unknown): string {
  if (typeof raw !== "string") throw invalid("name must be a string", { field: "name" });
  const name = raw.normalize("NFC");
  if (name.length === 0) throw invalid("name must not be empty", { field: "name" });
  if (name === "." || name === "..")
    throw invalid(`name must not be ${JSON.stringify(name)}`, { field: "name" });
  if (name.includes("..")) throw invalid('name must not contain ".."', { field: "name" });
  if (name.includes("/") || name.includes("\\")) {
    throw invalid("name must not contain / or \\", { field: "name" });
  }
  if (CONTROL.test(name)) throw invalid("name must not contain control characters", { field: "name" });
  assertVisibleName(name);
  if (Buffer.byteLength(name, "utf8") > MAX_NAME_BYTES) {
    throw invalid(`name must be at most ${MAX_NAME_BYTES} bytes`, { field: "name" });
  }
  return name;
}

/** The path of a child named `name` under a parent at `parentPath` (undefined at the top). */
export function childPath(parentPath: string | undefined, name: string): string {
  return `${parentPath ?? ""}/${name}`;
}
