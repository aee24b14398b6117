import { useState } from "preact/hooks";
import { can, homeId } from "../lib/api.ts";
import { fromDrop, isFileDrag } from "../lib/drop.ts";
import { kindOf } from "../lib/format.ts";
import { folderUrl, navigate, useRoute } from "../lib/router.ts";
import type { FileRec } from "../lib/types.ts";
import { enqueue } from "../lib/upload.ts";
import { useAccess } from "../lib/useAccess.ts";
import { type Sort, useFolder } from "../lib/useFolder.ts";
import { useSelection } from "../lib/useSelection.ts";
import { Breadcrumbs } from "./Breadcrumbs.tsx";
import { ContinueWatching } from "./ContinueWatching.tsx";
import { useFileActions } from "./FileActions.tsx";
import { FileToolbar } from "./FileToolbar.tsx";
import { FileView, type ViewMode } from "./FileView.tsx";
import { Icon } from "./Icon.tsx";
import { Preview } from "./Preview.tsx";
import { Sharing } from "./Sharing.tsx";

function stored<T extends string>(key: string, fallback: T): T {
  return (localStorage.getItem(key) as T | null) ?? fallback;
}

/** The file browser: a folder's entries, its actions, uploads by drop, and the viewer. */
export function Browser({ dirId }: { dirId: string | undefined }) {
  const route = useRoute();
  const [mode, setModeState] = useState<ViewMode>(stored("attic.view", "list"));
  const [sort, setSortState] = useState<Sort>(() =>
    JSON.parse(stored("attic.sort", '{"key":"name","desc":false}')),
  );
  const [dragging, setDragging] = useState(false);
  const folder = useFolder(dirId, sort);
  const sel = useSelection(folder.files, dirId);
  const actions = useFileActions({ dirId, chosen: sel.chosen, reload: folder.reload, clear: sel.clear });
  const openId = route.query.get("open") ?? undefined;
  const here = folder.chain[folder.chain.length - 1];
  const [sharing, setSharing] = useState(false);
  const access = useAccess(dirId);
  const level = access.grants?.your_level;
  // A watched folder mirrors its host, and a folder shared "view only" takes no changes either.
  const writable = can("file:write") && !here?.read_only && level !== "read" && level !== "none";

  const setMode = (m: ViewMode) => {
    localStorage.setItem("attic.view", m);
    setModeState(m);
  };
  const setSort = (s: Sort) => {
    localStorage.setItem("attic.sort", JSON.stringify(s));
    setSortState(s);
  };
  const open = (f: FileRec) => {
    if (f.type === "directory") navigate(folderUrl(f.id));
    else navigate(folderUrl(dirId, f.id));
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Delete" && sel.chosen.length) actions.trashChosen();
    else if (e.key === "F2" && sel.chosen.length === 1) actions.renameChosen();
    else if ((e.key === "Backspace" || (e.altKey && e.key === "ArrowUp")) && dirId) {
      e.preventDefault();
      navigate(folderUrl(folder.chain[folder.chain.length - 2]?.id));
    } else if (e.key === "Escape") sel.clear();
  };
  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (!writable || !e.dataTransfer) return;
    enqueue(await fromDrop(e.dataTransfer), dirId);
  };
  const previewable = folder.files.filter((f) => f.type !== "directory");

  return (
    <section
      class={`browser${dragging ? " dragging" : ""}`}
      aria-label="Files"
      onDragOver={(e) => {
        if (!isFileDrag(e) || !writable) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => e.currentTarget === e.target && setDragging(false)}
      onDrop={onDrop}
    >
      <div class="row folder-head">
        <Breadcrumbs chain={folder.chain} />
        {level === "read" ? (
          <span class="badge" title="You can view and download here, not change">
            View only
          </span>
        ) : null}
        {level === "manage" ? (
          <button type="button" class="btn" onClick={() => setSharing(true)}>
            <Icon name="share" /> <span>Share</span>
          </button>
        ) : null}
      </div>
      {sharing ? (
        <Sharing
          dirId={dirId}
          name={here?.id === homeId() ? "My files" : (here?.name ?? "Shared files")}
          onClose={() => setSharing(false)}
          onChanged={access.reload}
        />
      ) : null}
      {!dirId ? <ContinueWatching /> : null}
      <FileToolbar
        actions={actions}
        chosen={sel.chosen}
        mode={mode}
        setMode={setMode}
        sort={sort}
        setSort={setSort}
        count={folder.total}
        loaded={folder.files.length}
        loading={folder.loading}
        readOnly={!writable}
        folderName={here?.name}
      />
      {folder.error ? (
        <p class="error" role="alert">
          {folder.error}
        </p>
      ) : null}
      <FileView
        files={folder.files}
        mode={mode}
        label={here ? `Contents of ${here.name}` : "Your files"}
        selected={sel.selected}
        focus={sel.focus}
        onFocus={sel.setFocus}
        onOpen={open}
        onSelect={sel.select}
        onSelectAll={sel.selectAll}
        onKey={onKey}
        emptyText={
          folder.loading ? "" : writable ? "This folder is empty. Drop files here or use Upload." : "Empty"
        }
      />
      {dragging ? (
        <div class="dropzone" aria-hidden="true">
          Drop files or folders to upload {here ? `to “${here.name}”` : "here"}
        </div>
      ) : null}
      {actions.dialogs}
      {openId ? (
        <Preview
          id={openId}
          siblings={previewable.filter((f) => kindOf(f) !== "folder")}
          onNavigate={(id) => navigate(folderUrl(dirId, id), true)}
          onClose={() => navigate(folderUrl(dirId))}
          onChanged={folder.reload}
        />
      ) : null}
    </section>
  );
}
