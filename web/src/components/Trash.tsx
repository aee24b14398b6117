import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../lib/api.ts";
import { formatDate, formatSize, kindOf, messageOf } from "../lib/format.ts";
import { toast } from "../lib/toast.ts";
import type { FileList, FileRec } from "../lib/types.ts";
import { Icon } from "./Icon.tsx";
import { confirmAction } from "./Modal.tsx";

/** Deleted items, newest first: restore to where they were, or delete for good. */
export function Trash() {
  const [items, setItems] = useState<FileRec[]>();
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api<FileList>("GET", "/trash", { query: { limit: 500 } })
      .then((r) => setItems(r.files))
      .catch((e) => setError(messageOf(e)));
  }, [version]);
  const restore = async (f: FileRec) => {
    try {
      await api("POST", `/trash/${encodeURIComponent(f.id)}/restore`);
      toast(`Restored “${f.name}” to ${f.path.slice(0, f.path.lastIndexOf("/")) || "Home"}`);
      setVersion((v) => v + 1);
    } catch (err) {
      const clash = err instanceof ApiError && err.status === 409;
      toast(
        clash
          ? `Cannot restore “${f.name}”: something with that name is there now. Rename it first.`
          : messageOf(err),
        "error",
      );
    }
  };
  const purge = async (f: FileRec) => {
    if (
      !(await confirmAction(
        "Delete forever",
        `Delete “${f.name}” for good? This cannot be undone.`,
        "Delete forever",
        true,
      ))
    )
      return;
    try {
      await api("DELETE", `/trash/${encodeURIComponent(f.id)}`);
      setVersion((v) => v + 1);
    } catch (err) {
      toast(messageOf(err), "error");
    }
  };
  return (
    <section class="page" aria-labelledby="trash-title">
      <h1 id="trash-title">Trash</h1>
      {error ? <p class="error">{error}</p> : null}
      {items?.length === 0 ? <p class="empty">The trash is empty.</p> : null}
      <ul class="cards" aria-busy={!items}>
        {items?.map((f) => (
          <li key={f.id} class="card row trash-item">
            <span class={`kind kind-${kindOf(f)}`}>
              <Icon name={kindOf(f)} />
            </span>
            <span class="grow">
              <strong>{f.name}</strong>
              <span class="muted small block">
                {f.path} · {f.type === "directory" ? "folder" : formatSize(f.size)} · deleted{" "}
                {formatDate(f.deleted_at)}
              </span>
            </span>
            <button type="button" class="btn" onClick={() => restore(f)}>
              <Icon name="restore" /> <span class="wide-only">Restore</span>
            </button>
            <button
              type="button"
              class="btn danger"
              onClick={() => purge(f)}
              aria-label={`Delete ${f.name} forever`}
            >
              <Icon name="trash" />
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
