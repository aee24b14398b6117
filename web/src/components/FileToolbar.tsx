import { useRef, useState } from "preact/hooks";
import { fromInput } from "../lib/drop.ts";
import type { FileRec } from "../lib/types.ts";
import { enqueue } from "../lib/upload.ts";
import type { Sort, SortKey } from "../lib/useFolder.ts";
import { download, downloadSelection, type FileActionsApi } from "./FileActions.tsx";
import type { ViewMode } from "./FileView.tsx";
import { Icon } from "./Icon.tsx";
import { LinkShare } from "./LinkShare.tsx";

/** "Loading… 3,000 of 10,000" while pages arrive, then "10,000 items". */
function countText(loading: boolean, loaded: number, total: number): string {
  if (loading) return total ? `Loading… ${loaded.toLocaleString()} of ${total.toLocaleString()}` : "Loading…";
  return `${total.toLocaleString()} item${total === 1 ? "" : "s"}`;
}

/** A toolbar button whose text hides on a phone; the label keeps it named for screen readers. */
function Action(p: { icon: string; label: string; onClick(): void; kind?: string }) {
  return (
    <button type="button" class={`btn ${p.kind ?? ""}`} onClick={p.onClick} aria-label={p.label}>
      <Icon name={p.icon} /> <span class="wide-only">{p.label}</span>
    </button>
  );
}

/** Upload files, upload a folder, new folder, and the entry count. */
function CreateBar(p: { actions: FileActionsApi; readOnly: boolean; count: string }) {
  const files = useRef<HTMLInputElement>(null);
  const folder = useRef<HTMLInputElement>(null);
  const picked = (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    enqueue(fromInput(input.files), p.actions.dirId);
    input.value = "";
  };
  return (
    <div class="group">
      {p.readOnly ? null : (
        <>
          <input
            ref={files}
            type="file"
            multiple
            hidden
            onChange={picked}
            aria-label="Choose files to upload"
          />
          <input
            ref={folder}
            type="file"
            hidden
            onChange={picked}
            aria-label="Choose a folder to upload"
            {...{ webkitdirectory: true }}
          />
          <button type="button" class="btn primary" onClick={() => files.current?.click()}>
            <Icon name="upload" /> <span>Upload</span>
          </button>
          <Action icon="folder" label="Upload folder" onClick={() => folder.current?.click()} />
          <Action icon="newfolder" label="New folder" onClick={p.actions.newFolder} />
        </>
      )}
      <span class="muted count" aria-live="polite">
        {p.count}
      </span>
    </div>
  );
}

/** What can be done with the selected entries. */
function SelectionBar(p: {
  actions: FileActionsApi;
  chosen: FileRec[];
  readOnly: boolean;
  folderName?: string;
}) {
  const a = p.actions;
  const one = p.chosen.length === 1 ? p.chosen[0] : undefined;
  const [linking, setLinking] = useState<FileRec>();
  return (
    <div class="group selection">
      <strong aria-live="polite">{p.chosen.length} selected</strong>
      {one ? (
        <Action
          icon="download"
          label={one.type === "directory" ? "Download as zip" : "Download"}
          onClick={() => download(one)}
        />
      ) : a.dirId && p.folderName ? (
        // Several items: one zip of them, through the folder's link (the top level has no folder to name it).
        <Action
          icon="download"
          label="Download as zip"
          onClick={() => downloadSelection(a.dirId as string, p.folderName as string, p.chosen)}
        />
      ) : null}
      {one ? <Action icon="share" label="Get link" onClick={() => setLinking(one)} /> : null}
      {linking ? <LinkShare item={linking} onClose={() => setLinking(undefined)} /> : null}
      {p.readOnly ? null : (
        <>
          {one ? <Action icon="rename" label="Rename" onClick={a.renameChosen} /> : null}
          <Action icon="move" label="Move" onClick={() => a.pick("move")} />
          <Action icon="copy" label="Copy" onClick={() => a.pick("copy")} />
          <Action icon="trash" label="Delete" kind="danger" onClick={a.trashChosen} />
        </>
      )}
    </div>
  );
}

/** Sort key, direction, and list or grid. */
function ViewControls(p: { mode: ViewMode; setMode(m: ViewMode): void; sort: Sort; setSort(s: Sort): void }) {
  return (
    <div class="group end">
      <select
        value={p.sort.key}
        onChange={(e) => p.setSort({ ...p.sort, key: e.currentTarget.value as SortKey })}
        aria-label="Sort by"
      >
        <option value="name">Name</option>
        <option value="size">Size</option>
        <option value="date">Date</option>
      </select>
      <button
        type="button"
        class="icon-btn"
        onClick={() => p.setSort({ ...p.sort, desc: !p.sort.desc })}
        aria-label={
          p.sort.desc ? "Sort descending (click for ascending)" : "Sort ascending (click for descending)"
        }
        title={p.sort.desc ? "Descending" : "Ascending"}
      >
        <span class={p.sort.desc ? "flip" : ""}>
          <Icon name="up" />
        </span>
      </button>
      <fieldset class="seg">
        <legend class="sr-only">View</legend>
        {(["list", "grid"] as const).map((m) => (
          <button
            key={m}
            type="button"
            aria-pressed={p.mode === m}
            onClick={() => p.setMode(m)}
            aria-label={m === "list" ? "List view" : "Grid view"}
          >
            <Icon name={m} />
          </button>
        ))}
      </fieldset>
    </div>
  );
}

/** The toolbar above the file list: create and upload, or act on the selection; sort and view. */
export function FileToolbar(p: {
  actions: FileActionsApi;
  chosen: FileRec[];
  mode: ViewMode;
  setMode(m: ViewMode): void;
  sort: Sort;
  setSort(s: Sort): void;
  count: number;
  loaded: number;
  loading: boolean;
  readOnly: boolean;
  /** The folder shown (absent at the top). */
  folderName?: string;
}) {
  return (
    <div class="toolbar" role="toolbar" aria-label="File actions">
      {p.chosen.length === 0 ? (
        <CreateBar
          actions={p.actions}
          readOnly={p.readOnly}
          count={countText(p.loading, p.loaded, p.count)}
        />
      ) : (
        <SelectionBar actions={p.actions} chosen={p.chosen} readOnly={p.readOnly} folderName={p.folderName} />
      )}
      <ViewControls mode={p.mode} setMode={p.setMode} sort={p.sort} setSort={p.setSort} />
    </div>
  );
}
