import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { formatDate, formatSize, kindOf } from "../lib/format.ts";
import type { FileRec } from "../lib/types.ts";
import { Icon } from "./Icon.tsx";
import { Thumb } from "./Thumb.tsx";

export type ViewMode = "list" | "grid";

export interface FileViewProps {
  files: FileRec[];
  mode: ViewMode;
  selected: ReadonlySet<string>;
  focus: number;
  label: string;
  onFocus(index: number): void;
  onOpen(f: FileRec): void;
  /** `how`: replace the selection, toggle one, or extend a range from the last anchor. */
  onSelect(index: number, how: "only" | "toggle" | "range"): void;
  onSelectAll(): void;
  /** Keys the view does not handle itself (Delete, F2, Backspace...). */
  onKey?(e: KeyboardEvent): void;
  emptyText?: string;
  /** Show each entry's folder (search results: the uploaded copy and the watched copy of a file look alike). */
  showFolder?: boolean;
}

/** The folder part of a tree path: "/Films/a.mkv" → "/Films", "/a.mkv" → "/". */
export const folderOf = (path: string) => path.slice(0, path.lastIndexOf("/")) || "/";

const ROW = 48;
const TILE_H = 196;
const TILE_MIN_W = 150;
const OVERSCAN = 6;

/** Rows and columns of the virtual layout for a width. */
function layout(mode: ViewMode, width: number) {
  if (mode === "list") return { cols: 1, rowH: ROW };
  return { cols: Math.max(2, Math.floor(width / TILE_MIN_W)), rowH: TILE_H };
}

/**
 * A virtualised list or grid: only the rows in view (plus a few) are in the
 * DOM, so a folder of 10,000 entries scrolls as smoothly as one of ten. One
 * focusable listbox with aria-activedescendant carries keyboard navigation.
 */
export function FileView(p: FileViewProps) {
  const box = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ w: 800, h: 600 });
  const [scroll, setScroll] = useState(0);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setSize({ w: el.clientWidth, h: el.clientHeight }));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const { cols, rowH } = layout(p.mode, size.w - 16);
  const rows = Math.ceil(p.files.length / cols);
  const first = Math.max(0, Math.floor(scroll / rowH) - OVERSCAN);
  const last = Math.min(rows, Math.ceil((scroll + size.h) / rowH) + OVERSCAN);

  useEffect(() => {
    // Keep the focused entry in view when the keyboard moves it.
    const el = box.current;
    if (!el || p.focus < 0) return;
    const top = Math.floor(p.focus / cols) * rowH;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + rowH > el.scrollTop + el.clientHeight) el.scrollTop = top + rowH - el.clientHeight;
  }, [p.focus, cols, rowH]);

  const onKeyDown = (e: KeyboardEvent) => {
    const n = p.files.length;
    const step: Record<string, number> = {
      ArrowDown: cols,
      ArrowUp: -cols,
      ArrowRight: p.mode === "grid" ? 1 : 0,
      ArrowLeft: p.mode === "grid" ? -1 : 0,
      PageDown: cols * Math.max(1, Math.floor(size.h / rowH) - 1),
      PageUp: -cols * Math.max(1, Math.floor(size.h / rowH) - 1),
    };
    if (e.key in step && step[e.key]) {
      e.preventDefault();
      const next = Math.min(n - 1, Math.max(0, (p.focus < 0 ? -1 : p.focus) + step[e.key]!));
      p.onFocus(next);
      if (e.shiftKey) p.onSelect(next, "range");
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      p.onFocus(e.key === "Home" ? 0 : n - 1);
    } else if (e.key === "Enter" && p.files[p.focus]) {
      e.preventDefault();
      p.onOpen(p.files[p.focus]!);
    } else if (e.key === " " && p.focus >= 0) {
      e.preventDefault();
      p.onSelect(p.focus, "toggle");
    } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "a") {
      e.preventDefault();
      p.onSelectAll();
    } else p.onKey?.(e);
  };

  const cells = [];
  for (let i = first * cols; i < Math.min(p.files.length, last * cols); i++) {
    const f = p.files[i]!;
    const top = Math.floor(i / cols) * rowH;
    const left = p.mode === "grid" ? `${((i % cols) * 100) / cols}%` : "0";
    // Preact 11 adds no "px": lengths are strings.
    const style: Record<string, string> =
      p.mode === "grid"
        ? { top: `${top}px`, left, width: `${100 / cols}%`, height: `${rowH}px` }
        : { top: `${top}px`, height: `${rowH}px` };
    cells.push(<Entry key={f.id} f={f} i={i} style={style} {...p} />);
  }
  const focused = p.files[p.focus];
  return (
    <div
      ref={box}
      class={`fileview fileview-${p.mode}`}
      role="listbox"
      aria-multiselectable="true"
      aria-label={p.label}
      tabIndex={0}
      aria-activedescendant={focused ? `entry-${focused.id}` : undefined}
      onKeyDown={onKeyDown}
      onScroll={(e) => setScroll(e.currentTarget.scrollTop)}
      onFocus={() => p.focus < 0 && p.files.length && p.onFocus(0)}
    >
      {p.files.length === 0 && p.emptyText ? <p class="empty">{p.emptyText}</p> : null}
      <div class="fileview-inner" style={{ height: `${rows * rowH}px` }}>
        {cells}
      </div>
    </div>
  );
}

function Entry(props: FileViewProps & { f: FileRec; i: number; style: Record<string, string> }) {
  const { f, i } = props;
  const selected = props.selected.has(f.id);
  const kind = kindOf(f);
  const click = (e: MouseEvent) => {
    props.onFocus(i);
    if (e.shiftKey) props.onSelect(i, "range");
    else if (e.ctrlKey || e.metaKey) props.onSelect(i, "toggle");
    else props.onOpen(f);
  };
  const meta = f.type === "directory" ? "Folder" : formatSize(f.size);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox handles keys for its options (aria-activedescendant)
    // biome-ignore lint/a11y/useFocusableInteractive: focus stays on the listbox, options are active descendants
    <div
      id={`entry-${f.id}`}
      role="option"
      aria-selected={selected}
      class={`entry${selected ? " selected" : ""}${props.focus === i ? " focused" : ""}`}
      style={props.style}
      onClick={click}
      data-name={f.name}
    >
      <span
        class="check"
        aria-hidden="true"
        onClick={(e) => {
          e.stopPropagation();
          props.onFocus(i);
          props.onSelect(i, e.shiftKey ? "range" : "toggle");
        }}
      >
        {selected ? <Icon name="check" size={14} /> : null}
      </span>
      {props.mode === "grid" ? (
        <Thumb f={f} kind={kind} />
      ) : (
        <span class={`kind kind-${kind}`}>
          <Icon name={kind} />
        </span>
      )}
      <span class="name" title={f.name}>
        {f.name}
        {props.showFolder ? (
          <span class="folder muted" title={folderOf(f.path)}>
            {`in ${folderOf(f.path)}`}
          </span>
        ) : null}
        <span class="meta-inline">
          {meta}
          {f.type === "directory" ? "" : ` · ${formatDate(f.updated_at)}`}
        </span>
      </span>
      {props.mode === "list" ? (
        <>
          <span class="tags">
            {(f.tags ?? []).slice(0, 3).map((t) => (
              <span key={t.id} class="tag" style={{ "--tag": t.color }}>
                {t.name}
              </span>
            ))}
          </span>
          <span class="size">{f.type === "directory" ? "—" : formatSize(f.size)}</span>
          <span class="date">{formatDate(f.updated_at)}</span>
        </>
      ) : null}
    </div>
  );
}
