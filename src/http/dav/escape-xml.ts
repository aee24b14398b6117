const SPECIAL = /[<>&"']/;

/**
 * Text made safe inside XML or HTML content and attribute values (numeric
 * character references). In a module of its own so that share pages escape
 * HTML without loading WebDAV's xmldom.
 */
export function escapeXml(s: string): string {
  return SPECIAL.test(s) ? s.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`) : s;
}
