import { useEffect, useState } from "preact/hooks";

/** The current location: path and query, as the address bar shows it. */
export interface Route {
  path: string;
  query: URLSearchParams;
}

const subscribers = new Set<() => void>();

function current(): Route {
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

window.addEventListener("popstate", () => {
  for (const s of subscribers) s();
});

/** Goes to an in-app URL without reloading; `replace` keeps the history entry (typing in search). */
export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  for (const s of subscribers) s();
}

/** Re-renders the caller on every navigation. */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const s = () => setRoute(current());
    subscribers.add(s);
    return () => {
      subscribers.delete(s);
    };
  }, []);
  return route;
}

/** Click handler for <a href> inside the app: plain clicks navigate in place, modified clicks open a tab. */
export function linkClick(e: MouseEvent): void {
  const a = (e.currentTarget as HTMLAnchorElement | null) ?? undefined;
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute("href") ?? "/");
}

/** URL of a folder (`undefined` = the top of the tree), optionally with a file open in the viewer. */
export function folderUrl(dirId: string | undefined | null, open?: string): string {
  const base = dirId ? `/d/${encodeURIComponent(dirId)}` : "/";
  return open ? `${base}?open=${encodeURIComponent(open)}` : base;
}
