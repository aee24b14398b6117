import { useEffect, useState } from "preact/hooks";
import { ApiKeys } from "./admin/ApiKeys.tsx";
import { Users } from "./admin/Users.tsx";
import { WatchedFolders } from "./admin/WatchedFolders.tsx";
import { Browser } from "./components/Browser.tsx";
import { ChangePassword } from "./components/ChangePassword.tsx";
import { Login } from "./components/Login.tsx";
import { DialogHost } from "./components/Modal.tsx";
import { Search } from "./components/Search.tsx";
import { Shell } from "./components/Shell.tsx";
import { Toasts } from "./components/Toasts.tsx";
import { Trash } from "./components/Trash.tsx";
import { Uploads } from "./components/Uploads.tsx";
import { api, currentSession, updateSession } from "./lib/api.ts";
import { useRoute } from "./lib/router.ts";
import type { Profile } from "./lib/types.ts";
import { useSession } from "./lib/useSession.ts";

/** Which page a path shows. */
function Page({ path }: { path: string }) {
  if (path === "/" || path === "") return <Browser dirId={undefined} />;
  const dir = /^\/d\/([^/]+)$/.exec(path);
  if (dir) return <Browser dirId={decodeURIComponent(dir[1]!)} />;
  if (path === "/search") return <Search />;
  if (path === "/trash") return <Trash />;
  if (path === "/keys") return <ApiKeys />;
  if (path === "/admin/users") return <Users />;
  if (path === "/admin/watched") return <WatchedFolders />;
  return (
    <section class="page">
      <h1>Not found</h1>
      <p>
        There is no page at this address. <a href="/">Go to your files</a>.
      </p>
    </section>
  );
}

/** The whole UI: sign-in when there is no session, else the shell around the current page. */
export function App() {
  const session = useSession();
  const route = useRoute();
  const [passwordPrompt, setPasswordPrompt] = useState<"first" | "manual">();
  const signedIn = !!session;
  useEffect(() => {
    if (!signedIn) return;
    // The profile says whether the password must change (the generated admin password on first run).
    api<Profile>("GET", "/auth/profile")
      .then((user) => {
        updateSession({ user, must_change_password: user.must_change_password });
        if (user.must_change_password) setPasswordPrompt("first");
      })
      .catch(() => {
        if (currentSession()?.must_change_password) setPasswordPrompt("first");
      });
  }, [signedIn]);
  if (!session) {
    return (
      <>
        <Login />
        <Toasts />
      </>
    );
  }
  return (
    <>
      <Shell path={route.path} onChangePassword={() => setPasswordPrompt("manual")}>
        <Page path={route.path} />
      </Shell>
      <Uploads />
      <Toasts />
      <DialogHost />
      {passwordPrompt ? (
        <ChangePassword firstRun={passwordPrompt === "first"} onClose={() => setPasswordPrompt(undefined)} />
      ) : null}
    </>
  );
}
