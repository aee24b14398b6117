import { DOMParser, type Element, XMLSerializer } from "@xmldom/xmldom";
import { AppError } from "../../errors.ts";
import { escapeXml } from "./escape-xml.ts";

export const DAV = "DAV:";

/** Largest WebDAV request body parsed as XML (PROPFIND, PROPPATCH, LOCK). */
export const MAX_XML_BYTES = 1024 * 1024;

/**
 * Parses a request body as XML with xmldom (well kept, namespace-aware).
 * Any DOCTYPE is refused before parsing: no entity expansion, no external
 * entities, no DTD. Malformed XML or namespaces are 400.
 */
export function parseXml(text: string): Element {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new AppError("VALIDATION", "DTDs are not accepted");
  try {
    const doc = new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") throw new Error(message);
      },
    }).parseFromString(text, "application/xml");
    const root = doc.documentElement;
    if (!root) throw new Error("no document element");
    return root;
  } catch (err) {
    throw new AppError("VALIDATION", "malformed XML body", undefined, { cause: err });
  }
}

/** Child elements of `el`, optionally only those named {ns}local. */
export function children(el: Element, ns?: string, local?: string): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType !== 1) continue;
    const e = n as Element;
    if ((ns === undefined || e.namespaceURI === ns) && (local === undefined || e.localName === local))
      out.push(e);
  }
  return out;
}

export const child = (el: Element, ns: string, local: string): Element | undefined =>
  children(el, ns, local)[0];

/** The element as XML text, with the namespace declarations it needs. */
export const serialize = (el: Element): string => new XMLSerializer().serializeToString(el);

/** The XML of the element's children (an <owner>'s content). */
export function innerXml(el: Element): string {
  const s = new XMLSerializer();
  let out = "";
  for (let n = el.firstChild; n; n = n.nextSibling) out += s.serializeToString(n);
  return out;
}

/** An empty element for a property name in any namespace (prefix chosen here). */
export function emptyElement(ns: string, name: string): string {
  if (ns === DAV) return `<D:${name}/>`;
  if (ns === "") return `<${name} xmlns=""/>`;
  return `<X:${name} xmlns:X="${escapeXml(ns)}"/>`;
}
