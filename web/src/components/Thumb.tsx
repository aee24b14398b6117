import { useEffect, useState } from "preact/hooks";
import { createLimit } from "../../../src/platform/pool.ts";
import { thumbnailUrl } from "../lib/files.ts";
import type { Kind } from "../lib/format.ts";
import type { FileRec } from "../lib/types.ts";
import { Icon } from "./Icon.tsx";

/** At most 4 thumbnail fetches at once. */
const limited = createLimit(4);
/** Files the server has no thumbnail for: not asked again this session. */
const missing = new Set<string>();

/**
 * The picture of a grid tile: the server's thumbnail for images and videos
 * (fetched with the Authorization header into a blob: URL, a few at a time,
 * only for tiles in view), else the kind's icon.
 */
export function Thumb({ f, kind }: { f: FileRec; kind: Kind }) {
  const [src, setSrc] = useState<string>();
  const wants = (kind === "image" || kind === "video") && !missing.has(`${f.id}:${f.updated_at}`);
  useEffect(() => {
    if (!wants) return;
    const ac = new AbortController();
    let url: string | undefined;
    const timer = setTimeout(() => {
      limited(() => (ac.signal.aborted ? Promise.resolve(undefined) : thumbnailUrl(f.id, 256, ac.signal)))
        .then((u) => {
          url = u;
          if (u && !ac.signal.aborted) setSrc(u);
          else if (!u && !ac.signal.aborted) missing.add(`${f.id}:${f.updated_at}`);
          else if (u) URL.revokeObjectURL(u);
        })
        .catch(() => {});
    }, 120); // tiles scrolled past quickly never ask
    return () => {
      clearTimeout(timer);
      ac.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [f.id, f.updated_at, wants]);
  return (
    <span class={`thumb kind-${kind}`}>
      {src ? <img src={src} alt="" loading="lazy" decoding="async" /> : <Icon name={kind} size={44} />}
    </span>
  );
}
