import { useEffect, useState } from "preact/hooks";
import { ApiError, api, streamUrl } from "../lib/api.ts";
import { getFile } from "../lib/files.ts";
import { formatDate, formatSize, kindOf, messageOf } from "../lib/format.ts";
import type { FileContent, FileRec } from "../lib/types.ts";
import { download } from "./FileActions.tsx";
import { Icon } from "./Icon.tsx";
import { MediaPlayer } from "./MediaPlayer.tsx";
import { Modal } from "./Modal.tsx";
import { TagEditor } from "./TagEditor.tsx";

/** The server's cap on text previews (docs/api.md: larger gives 413). */
const TEXT_CAP = 10 * 1024 * 1024;

/** The viewer: text, JSON, images, audio and video, with details and tags; arrows step through the folder. */
export function Preview(p: {
  id: string;
  siblings: FileRec[];
  onNavigate(id: string): void;
  onClose(): void;
  onChanged?(): void;
}) {
  const [f, setF] = useState<FileRec>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    setF(undefined);
    setError(undefined);
    getFile(p.id, true).then(setF, (e) => setError(messageOf(e)));
  }, [p.id]);
  const at = p.siblings.findIndex((s) => s.id === p.id);
  const step = (d: number) => {
    const next = p.siblings[at + d];
    if (next) p.onNavigate(next.id);
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const tag = (e.target as HTMLElement).tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "VIDEO" || tag === "AUDIO") return;
      if (e.key === "ArrowRight") step(1);
      if (e.key === "ArrowLeft") step(-1);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  const actions = (
    <div class="row">
      <button
        type="button"
        class="icon-btn"
        disabled={at <= 0}
        onClick={() => step(-1)}
        aria-label="Previous file"
      >
        <span class="flip-h">
          <Icon name="chevron" />
        </span>
      </button>
      <button
        type="button"
        class="icon-btn"
        disabled={at < 0 || at >= p.siblings.length - 1}
        onClick={() => step(1)}
        aria-label="Next file"
      >
        <Icon name="chevron" />
      </button>
      {f ? (
        <button type="button" class="icon-btn" onClick={() => download(f)} aria-label={`Download ${f.name}`}>
          <Icon name="download" />
        </button>
      ) : null}
    </div>
  );
  return (
    <Modal title={f?.name ?? "Loading…"} onClose={p.onClose} size="full" actions={actions}>
      {error ? <p class="error">{error}</p> : null}
      {f ? (
        <div class="preview">
          <div class="preview-main">
            <Body f={f} />
          </div>
          <aside class="preview-side" aria-label="Details">
            <dl class="details">
              <dt>Size</dt>
              <dd>{formatSize(f.size)}</dd>
              <dt>Type</dt>
              <dd>{f.mime_type}</dd>
              <dt>Modified</dt>
              <dd>{formatDate(f.updated_at)}</dd>
              <dt>Location</dt>
              <dd class="path">{f.path}</dd>
            </dl>
            <TagEditor
              f={f}
              onChanged={(nf) => {
                setF(nf);
                p.onChanged?.();
              }}
            />
          </aside>
        </div>
      ) : null}
    </Modal>
  );
}

function Body({ f }: { f: FileRec }) {
  const kind = kindOf(f);
  if (kind === "video" || kind === "audio") return <MediaPlayer f={f} />;
  if (kind === "image") return <ImageView f={f} />;
  if (kind === "text") return <TextView f={f} />;
  return (
    <div class="nopreview">
      <Icon name={kind} size={64} />
      <p>No preview for this kind of file.</p>
      <button type="button" class="btn primary" onClick={() => download(f)}>
        <Icon name="download" /> Download
      </button>
    </div>
  );
}

function ImageView({ f }: { f: FileRec }) {
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    let alive = true;
    // An <img> cannot send the Authorization header: a single-file link does.
    streamUrl(f.id, "download").then(
      (u) => alive && setSrc(u),
      () => {},
    );
    return () => {
      alive = false;
    };
  }, [f.id]);
  return src ? <img class="preview-image" src={src} alt={f.name} /> : <p class="muted">Loading…</p>;
}

function TextView({ f }: { f: FileRec }) {
  const [text, setText] = useState<string>();
  const [error, setError] = useState<string>();
  const tooBig = f.size > TEXT_CAP;
  useEffect(() => {
    if (tooBig) return;
    setText(undefined);
    setError(undefined);
    api<FileContent>("GET", `/files/${encodeURIComponent(f.id)}/content`)
      .then((r) => setText(pretty(r.content, r.mime_type || f.mime_type)))
      .catch((e) => setError(e instanceof ApiError && e.status === 413 ? "big" : messageOf(e)));
  }, [f.id, f.updated_at, tooBig]);
  if (tooBig || error === "big") {
    return (
      <div class="nopreview">
        <p>
          This file is {formatSize(f.size)}. Previews show text files up to 10 MB, so that a phone does not
          have to load a huge file; download it to read it all.
        </p>
        <button type="button" class="btn primary" onClick={() => download(f)}>
          <Icon name="download" /> Download
        </button>
      </div>
    );
  }
  if (error) return <p class="error">{error}</p>;
  return text === undefined ? (
    <p class="muted">Loading…</p>
  ) : (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable text must be reachable by keyboard to scroll it
    <pre class="preview-text" tabIndex={0}>
      {text}
    </pre>
  );
}

/** JSON is shown indented; anything that does not parse is shown as it is. */
function pretty(content: string, mime: string): string {
  if (!mime.includes("json")) return content;
  try {
    return JSON.stringify(JSON.parse(content), null, 2);
  } catch {
    return content;
  }
}
