import { useEffect, useState } from "preact/hooks";
import { formatSize } from "../lib/format.ts";
import {
  cancel,
  cancelAll,
  clearFinished,
  onUploads,
  resolveAllConflicts,
  resolveConflict,
  totals,
  type UploadItem,
  uploads,
} from "../lib/upload.ts";
import { Icon } from "./Icon.tsx";

const LABEL: Record<UploadItem["status"], string> = {
  queued: "Waiting",
  uploading: "Uploading",
  done: "Done",
  error: "Failed",
  conflict: "Name taken",
  canceled: "Canceled",
  skipped: "Skipped",
};

/** The upload panel: total and per-file progress, cancel, and the rename/skip choice on a name clash. */
export function Uploads() {
  const [list, setList] = useState(uploads);
  const [open, setOpen] = useState(true);
  useEffect(() => onUploads(setList), []);
  if (list.length === 0) return null;
  const t = totals(list);
  const conflicts = list.filter((i) => i.status === "conflict").length;
  const pct = t.total ? Math.round((100 * t.loaded) / t.total) : 100;
  return (
    <section class="uploads" aria-label="Uploads">
      <header class="uploads-head">
        <button type="button" class="link" onClick={() => setOpen(!open)} aria-expanded={open}>
          {t.active ? `Uploading ${t.active} file${t.active === 1 ? "" : "s"}` : "Uploads finished"} · {pct}%
        </button>
        {t.active ? (
          <button type="button" class="btn small" onClick={cancelAll}>
            Cancel all
          </button>
        ) : (
          <button type="button" class="icon-btn" onClick={clearFinished} aria-label="Close uploads">
            <Icon name="close" />
          </button>
        )}
      </header>
      <progress class="total" max={t.total || 1} value={t.loaded} aria-label="Total upload progress" />
      <p class="muted small" aria-live="polite">
        {formatSize(t.loaded)} of {formatSize(t.total)}
      </p>
      {conflicts > 1 ? (
        <div class="row conflict-all">
          <span>{conflicts} names are taken:</span>
          <button type="button" class="btn small" onClick={() => resolveAllConflicts("rename")}>
            Keep both (rename all)
          </button>
          <button type="button" class="btn small" onClick={() => resolveAllConflicts("skip")}>
            Skip all
          </button>
        </div>
      ) : null}
      {open ? (
        <ul class="upload-list">
          {list.map((i) => (
            <UploadRow key={i.id} i={i} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function UploadRow({ i }: { i: UploadItem }) {
  const path = [...i.dirs, i.name].join("/");
  return (
    <li class={`upload upload-${i.status}`} data-status={i.status}>
      <div class="upload-line">
        <span class="upload-name" title={path}>
          {path}
        </span>
        <span class="muted small">{LABEL[i.status]}</span>
        {i.status === "queued" || i.status === "uploading" ? (
          <button
            type="button"
            class="icon-btn small"
            onClick={() => cancel(i.id)}
            aria-label={`Cancel ${i.name}`}
          >
            <Icon name="close" size={16} />
          </button>
        ) : null}
      </div>
      {i.status === "uploading" || i.status === "queued" ? (
        <progress max={i.file.size || 1} value={i.loaded} aria-label={`Progress of ${i.name}`} />
      ) : null}
      {i.error ? <p class={i.status === "conflict" ? "warn small" : "error small"}>{i.error}</p> : null}
      {i.status === "conflict" ? (
        <div class="row">
          <button type="button" class="btn small" onClick={() => resolveConflict(i.id, "rename")}>
            Keep both
          </button>
          <button type="button" class="btn small" onClick={() => resolveConflict(i.id, "skip")}>
            Skip
          </button>
        </div>
      ) : null}
    </li>
  );
}
