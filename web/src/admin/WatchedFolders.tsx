import { useEffect, useState } from "preact/hooks";
import { confirmAction } from "../components/Modal.tsx";
import { api } from "../lib/api.ts";
import { formatDate, messageOf } from "../lib/format.ts";
import { folderUrl, linkClick } from "../lib/router.ts";
import { toast } from "../lib/toast.ts";
import type { WatchedFolder, WatchedFolderList } from "../lib/types.ts";
import { PathInput } from "./PathInput.tsx";

/** A status word for the badge: watching, polling, offline, scanning or error. */
function statusOf(w: WatchedFolder): string {
  return String(w.status ?? "unknown");
}

/** Figures of the running or last scan, as the server reports them on the record. */
function scanFigures(w: WatchedFolder): [string, string][] {
  const out: [string, string][] = [];
  out.push(["seen", w.files_seen.toLocaleString()]);
  out.push(["indexed", w.files_indexed.toLocaleString()]);
  if (w.scan_errors) out.push(["errors", w.scan_errors.toLocaleString()]);
  if (w.scan_rate) out.push(["rate", `${Math.round(w.scan_rate).toLocaleString()} files/s`]);
  const finished = w.last_scan_finished_at;
  if (typeof finished === "string") out.push(["last scan", formatDate(finished)]);
  return out;
}

/** One watched folder: status badge, scan figures, open, scan now, remove. */
function FolderCard({ w, onChanged }: { w: WatchedFolder; onChanged(): void }) {
  const scan = async () => {
    try {
      await api("POST", `/watched-folders/${encodeURIComponent(w.id)}/scan`);
      toast(`Scanning ${w.name}`);
      onChanged();
    } catch (err) {
      toast(messageOf(err), "error");
    }
  };
  const remove = async () => {
    const why = `Stop watching ${w.path}? Files on the drive are not touched.`;
    if (!(await confirmAction("Stop watching", why, "Stop watching", true))) return;
    try {
      await api("DELETE", `/watched-folders/${encodeURIComponent(w.id)}`);
      onChanged();
    } catch (err) {
      toast(messageOf(err), "error");
    }
  };
  return (
    <li class="card wf">
      <div class="row">
        <span class="grow">
          <strong>{w.name}</strong> <span class="mono small">{w.path}</span>
        </span>
        <span class={`badge badge-${statusOf(w).toLowerCase()}`}>{statusOf(w)}</span>
      </div>
      <dl class="figures">
        {scanFigures(w).map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      {w.status_message ? <p class="warn small">{w.status_message}</p> : null}
      <div class="row end">
        {w.directory_id ? (
          <a class="btn" href={folderUrl(w.directory_id)} onClick={linkClick}>
            Open
          </a>
        ) : null}
        <button type="button" class="btn" onClick={scan}>
          Scan now
        </button>
        <button type="button" class="btn danger" onClick={remove}>
          Remove
        </button>
      </div>
    </li>
  );
}

/** A host path (suggested as the admin types) and the name it gets in the tree. */
function AddFolderForm({ onAdded }: { onAdded(): void }) {
  const [name, setName] = useState("");
  const [path, setPath] = useState("");
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const clean = path.length > 1 ? path.replace(/\/+$/, "") : path;
      await api("POST", "/watched-folders", { body: { name: name || clean.split("/").pop(), path: clean } });
      toast(`Watching ${clean}`);
      setName("");
      setPath("");
      onAdded();
    } catch (err) {
      toast(`Could not add the folder: ${messageOf(err)}`, "error");
    }
  };
  return (
    <form class="card stack" onSubmit={create} aria-label="Add a watched folder">
      <h2>Add a folder</h2>
      <div class="field">
        <label for="wf-path">Path on this machine</label>
        <PathInput value={path} onChange={setPath} />
      </div>
      <label class="field">
        <span>Name in Attic</span>
        <input
          value={name}
          placeholder={path.replace(/\/+$/, "").split("/").pop() || "Media"}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <div class="row end">
        <button type="submit" class="btn primary">
          Watch folder
        </button>
      </div>
    </form>
  );
}

/** Watched folders: host directories mounted read-only into the tree, with their scan status. */
export function WatchedFolders() {
  const [list, setList] = useState<WatchedFolder[]>();
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((v) => v + 1);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () =>
      api<WatchedFolderList>("GET", "/watched-folders")
        .then((r) => {
          const items = r.folders;
          setList(items);
          setError(undefined);
          // Poll while a scan runs so the figures move.
          if (items.some((w) => statusOf(w) === "scanning")) timer = setTimeout(load, 2000);
        })
        .catch((e) => setError(messageOf(e)));
    void load();
    return () => clearTimeout(timer);
  }, [version]);
  return (
    <section class="page" aria-labelledby="wf-title">
      <h1 id="wf-title">Watched folders</h1>
      <p class="muted">
        Folders on this machine's drives, shown read-only in everyone's files and kept in sync.
      </p>
      {error ? <p class="error">{error}</p> : null}
      <ul class="cards" aria-busy={!list} aria-label="Watched folders">
        {list?.length === 0 ? <li class="muted">No watched folders yet.</li> : null}
        {list?.map((w) => (
          <FolderCard key={w.id} w={w} onChanged={reload} />
        ))}
      </ul>
      <AddFolderForm onAdded={reload} />
    </section>
  );
}
