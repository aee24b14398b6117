/**
 * Folds text for accent- and case-insensitive matching: canonical
 * decomposition, combining marks dropped, Unicode lower case. "Amélie" and
 * "AMELIE" both fold to "amelie". Mirrors what the FTS5 trigram tokenizer
 * (`remove_diacritics 1 case_sensitive 0`) does, so the short-query fallback
 * and the index agree.
 */
export function foldText(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

/** True when `text` holds a character outside printable ASCII (so folding may change more than case). */
export function hasNonAscii(text: string): boolean {
  return /[^\x20-\x7e]/.test(text);
}
