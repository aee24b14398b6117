import { useRef, useState } from "preact/hooks";
import { ApiError, streamUrl } from "../lib/api.ts";
import { fromInput } from "../lib/drop.ts";
import { copy, createFolder, move, rename, trash } from "../lib/files.ts";
import { messageOf } from "../lib/format.ts";
import { toast } from "../lib/toast.ts";
import type { FileRec } from "../lib/types.ts";
import { enqueue } from "../lib/upload.ts";
import type { Sort, SortKey } from "../lib/useFolder.ts";
import type { ViewMode } from "./FileView.tsx";
import { FolderPicker } from "./FolderPicker.tsx";
import { Icon } from "./Icon.tsx";
import { confirmAction, promptText } from "./Modal.tsx";

/** Starts a download of one file through a short-lived link (an <a download> cannot send headers). */
export async function download(f: FileRec): Promise<void> {
  try {
    const a = document.createElement("a");
    a.href = await streamUrl(f.id, "download");
    a.download = f.name;
    document.body.append(a);
    a.click();
    a.remove();
  } catch (err) {
    toast(`Download failed: ${messageOf(err)}`, "error");
  }
}

/** Runs `op` on each chosen entry, then says how it went in one message. */
async function each(
  list: FileRec[],
  [verb, past]: [string, string],
  op: (f: FileRec) => Promise<unknown>,
): Promise<number> {
  let ok = 0;
  for (const f of list) {
    try {
      await op(f);
      ok++;
    } catch (err) {
      const why =
        err instanceof ApiError && err.status === 409
          ? "a file with that name is already there"
          : messageOf(err);
      toast(`Could not ${verb} “${f.name}”: ${why}`, "error");
    }
  }
  if (ok) toast(`${past} ${ok === 1 ? `“${list[0]!.name}”` : `${ok} items`}`);
  return ok;
}

/** The operations on a folder and its selection, plus the move/copy dialog they may open. */
export function useFileActions(p: { dirId?: string; chosen: FileRec[]; reload(): void; clear(): void }) {
  const [picking, setPicking] = useState<"move" | "copy">();
  const done = () => {
    p.clear();
    p.reload();
  };
  const newFolder = async () => {
    const name = await promptText("New folder", "Folder name", "", "Create");
    if (!name) return;
    try {
      await createFolder(name, p.dirId);
      p.reload();
    } catch (err) {
      toast(
        err instanceof ApiError && err.status === 409 ? `“${name}” already exists here` : messageOf(err),
        "error",
      );
    }
  };
  const renameChosen = async () => {
    const f = p.chosen[0];
    const name =
      f &&
      (await promptText(
        `Rename ${f.type === "directory" ? "folder" : "file"}`,
        "New name",
        f.name,
        "Rename",
      ));
    if (f && name && name !== f.name)
      (await each([f], ["rename", "Renamed"], (x) => rename(x, name))) && done();
  };
  const trashChosen = async () => {
    const n = p.chosen.length;
    const what = n === 1 ? `“${p.chosen[0]!.name}”` : `${n} items`;
    if (
      await confirmAction(
        "Move to trash",
        `Move ${what} to the trash? You can restore it from Trash.`,
        "Move to trash",
        true,
      )
    )
      (await each(p.chosen, ["delete", "Moved to trash:"], trash)) && done();
  };
  const pickDone = async (target: string | undefined) => {
    const mode = picking;
    setPicking(undefined);
    if (mode === "move") (await each(p.chosen, ["move", "Moved"], (f) => move(f, target))) && done();
    if (mode === "copy") (await each(p.chosen, ["copy", "Copied"], (f) => copy(f, target))) && done();
  };
  const dialogs = picking ? (
    <FolderPicker
      title={picking === "move" ? "Move to…" : "Copy to…"}
      confirm={picking === "move" ? "Move" : "Copy"}
      start={p.dirId}
      exclude={new Set(p.chosen.filter((f) => f.type === "directory").map((f) => f.id))}
      onPick={pickDone}
      onClose={() => setPicking(undefined)}
    />
  ) : null;
  return { newFolder, renameChosen, trashChosen, pick: setPicking, dialogs, dirId: p.dirId };
}

type Actions = ReturnType<typeof useFileActions>;

/** "Loading… 3,000 of 10,000" while pages arrive, then "10,000 items". */
function countText(loading: boolean, loaded: number, total: number): string {
  if (loading) return total ? `Loading… ${loaded.toLocaleString()} of ${total.toLocaleString()}` : "Loading…";
  return `${total.toLocaleString()} item${total === 1 ? "" : "s"}`;
}

/** The toolbar above the file list: create and upload, selection actions, sort and view. */
export function FileActions(p: {
  actions: Actions;
  chosen: FileRec[];
  mode: ViewMode;
  setMode(m: ViewMode): void;
  sort: Sort;
  setSort(s: Sort): void;
  count: number;
  loaded: number;
  loading: boolean;
  readOnly: boolean;
}) {
  const files = useRef<HTMLInputElement>(null);
  const folder = useRef<HTMLInputElement>(null);
  const a = p.actions;
  const one = p.chosen.length === 1 ? p.chosen[0] : undefined;
  const picked = (e: Event) => {
    const input = e.currentTarget as HTMLInputElement;
    enqueue(fromInput(input.files), a.dirId);
    input.value = "";
  };
  return (
    <div class="toolbar" role="toolbar" aria-label="File actions">
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
        </>
      )}
      {p.chosen.length === 0 ? (
        <div class="group">
          {p.readOnly ? null : (
            <>
              <button type="button" class="btn primary" onClick={() => files.current?.click()}>
                <Icon name="upload" /> <span>Upload</span>
              </button>
              <button type="button" class="btn" onClick={() => folder.current?.click()}>
                <Icon name="folder" /> <span class="wide-only">Upload folder</span>
                <span class="sr-only narrow-only">Upload folder</span>
              </button>
              <button type="button" class="btn" onClick={a.newFolder}>
                <Icon name="newfolder" /> <span class="wide-only">New folder</span>
                <span class="sr-only narrow-only">New folder</span>
              </button>
            </>
          )}
          <span class="muted count" aria-live="polite">
            {countText(p.loading, p.loaded, p.count)}
          </span>
        </div>
      ) : (
        <div class="group selection">
          <strong aria-live="polite">{p.chosen.length} selected</strong>
          {one && one.type !== "directory" ? (
            <button type="button" class="btn" onClick={() => download(one)}>
              <Icon name="download" /> <span class="wide-only">Download</span>
            </button>
          ) : null}
          {p.readOnly ? null : (
            <>
              {one ? (
                <button type="button" class="btn" onClick={a.renameChosen}>
                  <Icon name="rename" /> <span class="wide-only">Rename</span>
                </button>
              ) : null}
              <button type="button" class="btn" onClick={() => a.pick("move")}>
                <Icon name="move" /> <span class="wide-only">Move</span>
              </button>
              <button type="button" class="btn" onClick={() => a.pick("copy")}>
                <Icon name="copy" /> <span class="wide-only">Copy</span>
              </button>
              <button type="button" class="btn danger" onClick={a.trashChosen}>
                <Icon name="trash" /> <span class="wide-only">Delete</span>
              </button>
            </>
          )}
        </div>
      )}
      <div class="group end">
        <label class="sort">
          <span class="sr-only">Sort by</span>
          <select
            value={p.sort.key}
            onChange={(e) => p.setSort({ ...p.sort, key: e.currentTarget.value as SortKey })}
            aria-label="Sort by"
          >
            <option value="name">Name</option>
            <option value="size">Size</option>
            <option value="date">Date</option>
          </select>
        </label>
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
          <button
            type="button"
            aria-pressed={p.mode === "list"}
            onClick={() => p.setMode("list")}
            aria-label="List view"
          >
            <Icon name="list" />
          </button>
          <button
            type="button"
            aria-pressed={p.mode === "grid"}
            onClick={() => p.setMode("grid")}
            aria-label="Grid view"
          >
            <Icon name="grid" />
          </button>
        </fieldset>
      </div>
    </div>
  );
}
