import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, can, claims, clearSession, currentSession } from "../lib/api.ts";
import { folderUrl, linkClick, navigate, useRoute } from "../lib/router.ts";
import { useSession } from "../lib/useSession.ts";
import { Icon } from "./Icon.tsx";

/** Ends the session on the server (revokes the refresh token), then locally whatever the answer. */
async function signOut(): Promise<void> {
  const s = currentSession();
  try {
    if (s) await api("POST", "/auth/logout", { body: { refresh_token: s.refresh_token } });
  } catch {}
  clearSession();
  navigate("/", true);
}

function NavLink(p: { href: string; icon: string; label: string; current: boolean }) {
  return (
    <a href={p.href} onClick={linkClick} class="nav-link" aria-current={p.current ? "page" : undefined}>
      <Icon name={p.icon} />
      <span>{p.label}</span>
    </a>
  );
}

/** The search field in the header: typing shows results as you go on the search page. */
function SearchBox() {
  const route = useRoute();
  const onSearch = route.path === "/search";
  const [q, setQ] = useState(onSearch ? (route.query.get("q") ?? "") : "");
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!onSearch) setQ("");
  }, [onSearch]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = (e.target as HTMLElement).tagName;
      if (e.key === "/" && t !== "INPUT" && t !== "TEXTAREA") {
        e.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const go = (value: string) => {
    setQ(value);
    const params = new URLSearchParams(onSearch ? route.query : undefined);
    params.set("q", value);
    navigate(`/search?${params}`, onSearch);
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: <search> is too new for some household browsers; the role is equivalent
    <form
      class="searchbox"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        go(q);
      }}
    >
      <Icon name="search" size={18} />
      <label class="sr-only" for="search-input">
        Search files
      </label>
      <input
        id="search-input"
        ref={input}
        type="search"
        placeholder="Search files…"
        autocomplete="off"
        value={q}
        onInput={(e) => go(e.currentTarget.value)}
      />
    </form>
  );
}

/** Header, navigation (a side bar on wide screens, a drawer on phones) and the page. */
export function Shell(p: { path: string; children: ComponentChildren; onChangePassword(): void }) {
  const [menu, setMenu] = useState(false);
  const user = currentSession()?.user?.username ?? claims().username ?? "";
  const isAdmin = can("user:manage") || can("org:admin");
  useEffect(() => setMenu(false), [p.path]);
  const files = p.path === "/" || p.path.startsWith("/d/");
  const home = useSession()?.user?.home_directory_id;
  const mine = !!home && p.path === folderUrl(home);
  return (
    <div class="shell">
      <header class="topbar">
        <button
          type="button"
          class="icon-btn menu-btn"
          aria-label="Menu"
          aria-expanded={menu}
          aria-controls="nav"
          onClick={() => setMenu(!menu)}
        >
          <Icon name="menu" />
        </button>
        <a href="/" onClick={linkClick} class="brand">
          <span class="logo" aria-hidden="true" />
          <span class="brand-name">Attic</span>
        </a>
        <SearchBox />
      </header>
      <nav id="nav" class={`sidebar${menu ? " open" : ""}`} aria-label="Main">
        <NavLink href="/" icon="folder" label="Shared files" current={files && !mine} />
        {home ? <NavLink href={folderUrl(home)} icon="lock" label="My files" current={mine} /> : null}
        <NavLink href="/trash" icon="trash" label="Trash" current={p.path === "/trash"} />
        <NavLink href="/keys" icon="key" label="API keys" current={p.path === "/keys"} />
        {isAdmin ? (
          <>
            <h2 class="nav-head">Administration</h2>
            <NavLink
              href="/admin/users"
              icon="user"
              label="Users & roles"
              current={p.path === "/admin/users"}
            />
            <NavLink
              href="/admin/watched"
              icon="drive"
              label="Watched folders"
              current={p.path === "/admin/watched"}
            />
          </>
        ) : null}
        <div class="nav-foot">
          <span class="muted" title="Signed in as">
            <Icon name="user" size={16} /> {user}
          </span>
          <button type="button" class="link" onClick={p.onChangePassword}>
            Change password
          </button>
          <button type="button" class="btn" onClick={signOut}>
            <Icon name="logout" /> Sign out
          </button>
        </div>
      </nav>
      {menu ? <div class="scrim" onClick={() => setMenu(false)} aria-hidden="true" /> : null}
      <main class="content" id="main">
        {p.children}
      </main>
    </div>
  );
}
