import { useEffect, useState } from "preact/hooks";
import { can } from "../lib/api.ts";
import { messageOf } from "../lib/format.ts";
import { attachTag, createTag, detachTag, listTags } from "../lib/tags.ts";
import { toast } from "../lib/toast.ts";
import type { FileRec, Tag } from "../lib/types.ts";
import { Icon } from "./Icon.tsx";

/** A file's tags as chips; type a name to add one (created when new), × to remove. */
export function TagEditor({ f, onChanged }: { f: FileRec; onChanged(f: FileRec): void }) {
  const [all, setAll] = useState<Tag[]>([]);
  const [text, setText] = useState("");
  const editable = can("file:write") && !f.read_only;
  useEffect(() => {
    listTags().then(setAll, () => setAll([]));
  }, []);
  const tags = f.tags ?? [];
  const add = async (e: Event) => {
    e.preventDefault();
    const name = text.trim();
    if (!name) return;
    try {
      let tag = all.find((t) => t.name.toLowerCase() === name.toLowerCase());
      if (!tag) {
        tag = await createTag(name, all.length);
        setAll([...all, tag]);
      }
      if (!tags.some((t) => t.id === tag.id)) onChanged({ ...f, tags: await attachTag(f, tag) });
      setText("");
    } catch (err) {
      toast(`Could not add tag: ${messageOf(err)}`, "error");
    }
  };
  const remove = async (tag: Tag) => {
    try {
      onChanged({ ...f, tags: await detachTag(f, tag) });
    } catch (err) {
      toast(`Could not remove tag: ${messageOf(err)}`, "error");
    }
  };
  return (
    <div class="tag-editor">
      <h3>Tags</h3>
      <ul class="chips" aria-label="Tags of this file">
        {tags.length === 0 ? <li class="muted">No tags</li> : null}
        {tags.map((t) => (
          <li key={t.id} class="tag" style={{ "--tag": t.color }}>
            {t.name}
            {editable ? (
              <button type="button" onClick={() => remove(t)} aria-label={`Remove tag ${t.name}`}>
                <Icon name="close" size={12} />
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {editable ? (
        <form onSubmit={add} class="row">
          <label class="sr-only" for="tag-input">
            Add a tag
          </label>
          <input
            id="tag-input"
            list="tag-names"
            placeholder="Add a tag…"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <datalist id="tag-names">
            {all.map((t) => (
              <option key={t.id} value={t.name} />
            ))}
          </datalist>
          <button type="submit" class="btn">
            Add
          </button>
        </form>
      ) : null}
    </div>
  );
}
