import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import type { PathSuggestions } from "../lib/types.ts";

/**
 * A host path field that suggests directories as the admin types
 * (GET /filesystem/path-suggestions): an ARIA combobox, arrows to move,
 * Enter or Tab to take a suggestion.
 */
export function PathInput({ value, onChange }: { value: string; onChange(v: string): void }) {
  const [list, setList] = useState<string[]>([]);
  const [active, setActive] = useState(-1);
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState<string>();
  useEffect(() => {
    if (!value.startsWith("/")) {
      setList([]);
      return;
    }
    const ac = new AbortController();
    const timer = setTimeout(() => {
      api<PathSuggestions>("GET", "/filesystem/path-suggestions", {
        query: { prefix: value, limit: 10 },
        signal: ac.signal,
      })
        .then((r) => {
          setList(r.suggestions.filter((s) => s !== value));
          setActive(-1);
          setNote(undefined);
        })
        .catch((e) => {
          if (ac.signal.aborted) return;
          setList([]);
          setNote((e as Error).message);
        });
    }, 120);
    return () => {
      clearTimeout(timer);
      ac.abort();
    };
  }, [value]);
  const take = (s: string) => {
    onChange(s.endsWith("/") ? s : `${s}/`);
    setOpen(true);
  };
  const onKey = (e: KeyboardEvent) => {
    if (!open || list.length === 0) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const d = e.key === "ArrowDown" ? 1 : -1;
      setActive((a) => (a + d + list.length) % list.length);
    } else if ((e.key === "Enter" || e.key === "Tab") && active >= 0) {
      e.preventDefault();
      take(list[active]!);
    } else if (e.key === "Escape") setOpen(false);
  };
  const shown = open && list.length > 0;
  return (
    <div class="combo">
      <input
        id="wf-path"
        role="combobox"
        aria-expanded={shown}
        aria-controls="wf-path-list"
        aria-autocomplete="list"
        aria-activedescendant={active >= 0 ? `wf-path-${active}` : undefined}
        autocomplete="off"
        spellcheck={false}
        required
        placeholder="/mnt/media"
        value={value}
        onInput={(e) => {
          onChange(e.currentTarget.value);
          setOpen(true);
        }}
        onKeyDown={onKey}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onFocus={() => setOpen(true)}
      />
      {shown ? (
        <div id="wf-path-list" role="listbox" class="combo-list" aria-label="Matching folders">
          {list.map((s, i) => (
            // biome-ignore lint/a11y/useFocusableInteractive: focus stays in the input (aria-activedescendant)
            <div
              key={s}
              id={`wf-path-${i}`}
              role="option"
              aria-selected={i === active}
              class={i === active ? "active" : ""}
              onMouseDown={(e) => {
                e.preventDefault();
                take(s);
              }}
            >
              {s}
            </div>
          ))}
        </div>
      ) : null}
      {note ? <p class="muted small">{note}</p> : null}
    </div>
  );
}
