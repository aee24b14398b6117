import { useEffect, useState } from "preact/hooks";
import { ancestors, listSubfolders } from "../lib/files.ts";
import { messageOf } from "../lib/format.ts";
import type { FileRec } from "../lib/types.ts";
import { Icon } from "./Icon.tsx";
import { Modal } from "./Modal.tsx";

/**
 * Chooses a destination folder for move or copy, starting at `start`;
 * folders in `exclude` (the ones being moved) cannot be entered or chosen.
 */
export function FolderPicker(props: {
  title: string;
  confirm: string;
  start: string | undefined;
  exclude: ReadonlySet<string>;
  onPick(dirId: string | undefined): void;
  onClose(): void;
}) {
  const [at, setAt] = useState(props.start);
  const [chain, setChain] = useState<FileRec[]>([]);
  const [dirs, setDirs] = useState<FileRec[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    const ac = new AbortController();
    setDirs(undefined);
    setError(undefined);
    Promise.all([at ? ancestors(at) : Promise.resolve([]), listSubfolders(at, ac.signal)])
      .then(([c, all]) => {
        setChain(c);
        setDirs(all.sort((a, b) => a.name.localeCompare(b.name)));
      })
      .catch((e) => !ac.signal.aborted && setError(messageOf(e)));
    return () => ac.abort();
  }, [at]);
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <div class="picker">
        <nav class="crumbs" aria-label="Destination path">
          <ol>
            <li>
              <button type="button" class="link" onClick={() => setAt(undefined)}>
                Home
              </button>
            </li>
            {chain.map((d) => (
              <li key={d.id}>
                <button type="button" class="link" onClick={() => setAt(d.id)}>
                  {d.name}
                </button>
              </li>
            ))}
          </ol>
        </nav>
        {error ? <p class="error">{error}</p> : null}
        <ul class="picker-list" aria-label="Folders" aria-busy={!dirs}>
          {dirs?.length === 0 ? <li class="muted">No folders here</li> : null}
          {dirs?.map((d) => (
            <li key={d.id}>
              <button type="button" disabled={props.exclude.has(d.id)} onClick={() => setAt(d.id)}>
                <Icon name="folder" /> {d.name}
              </button>
            </li>
          ))}
        </ul>
        <div class="row end">
          <button type="button" class="btn" onClick={props.onClose}>
            Cancel
          </button>
          <button type="button" class="btn primary" onClick={() => props.onPick(at)}>
            {props.confirm} {chain.length ? `to “${chain[chain.length - 1]!.name}”` : "to Home"}
          </button>
        </div>
      </div>
    </Modal>
  );
}
