import { useEffect, useState } from "preact/hooks";
import { formatDuration, kindOf } from "../lib/format.ts";
import { continueWatching } from "../lib/playback.ts";
import { folderUrl, linkClick } from "../lib/router.ts";
import type { ContinueWatching as Shelf } from "../lib/types.ts";
import { folderOf } from "./FileView.tsx";
import { Icon } from "./Icon.tsx";

type Item = Shelf["items"][number];

/** The "Continue watching" shelf: media started and not finished, newest first; hidden when empty. */
export function ContinueWatching() {
  const [items, setItems] = useState<Item[]>([]);
  useEffect(() => {
    let alive = true;
    continueWatching()
      .then((list) => alive && setItems(list))
      .catch(() => alive && setItems([]));
    return () => {
      alive = false;
    };
  }, []);
  if (items.length === 0) return null;
  return (
    <section class="shelf" aria-labelledby="shelf-title">
      <h2 id="shelf-title">Continue watching</h2>
      <ul>
        {items.map((it) => {
          const pct = it.duration_seconds
            ? Math.min(100, (100 * it.position_seconds) / it.duration_seconds)
            : 0;
          return (
            <li key={it.file_id}>
              <a href={folderUrl(it.file.parent_id, it.file_id)} onClick={linkClick} class="shelf-item">
                <span class="shelf-icon">
                  <Icon name={kindOf(it.file) === "audio" ? "audio" : "play"} size={28} />
                </span>
                <span class="shelf-name">{it.file.name}</span>
                <span class="shelf-folder muted">{`in ${folderOf(it.file.path)}`}</span>
                <span class="muted">
                  {formatDuration(it.position_seconds)}
                  {it.duration_seconds ? ` of ${formatDuration(it.duration_seconds)}` : ""}
                </span>
                <progress max={100} value={pct} aria-label={`${Math.round(pct)}% watched`} />
              </a>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
