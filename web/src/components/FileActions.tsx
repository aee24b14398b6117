import { useState } from "preact/hooks";
import { ApiError, streamUrl, zipUrl } from "../lib/api.ts";
import { copy, createFolder, move, rename, trash } from "../lib/files.ts";
import { messageOf } from "../lib/format.ts";
import { toast } from "../lib/toast.ts";
import type { FileRec } from "../lib/types.ts";
import { FolderPicker } from "./FolderPicker.tsx";
import { confirmAction, promptText } from "./Modal.tsx";

/**
 * Starts a download through a short-lived link (an <a download> cannot send
 * headers): a file as it is, a folder as one zip, streamed by the server.
 */
export async function download(f: FileRec): Promise<void> {
  const folder = f.type === "directory";
  await startDownload(
    () => (folder ? zipUrl(f.id) : streamUrl(f.id, "download")),
    folder ? `${f.name}.zip` : f.name,
  );
}

/** Downloads several items of one folder as one zip named after the folder. */
export function downloadSelection(dirId: string, folderName: string, chosen: FileRec[]): Promise<void> {
  return startDownload(
    () =>
      zipUrl(
        dirId,
        chosen.map((f) => f.id),
      ),
    `${folderName}.zip`,
  );
}

/** Clicks a temporary `<a download>` for the link `url()` makes; a failure is a toast. */
async function startDownload(url: () => Promise<string>, name: string): Promise<void> {
  try {
    const a = document.createElement("a");
    a.href = await url();
    a.download = name;
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

export type FileActionsApi = ReturnType<typeof useFileActions>;
