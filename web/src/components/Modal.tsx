import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Icon } from "./Icon.tsx";

/**
 * A modal <dialog>: the browser traps focus, Escape closes it and focus goes
 * back to where it was. Full screen on a phone (styles.css).
 */
export function Modal(props: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  size?: "small" | "wide" | "full";
  actions?: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      props.onClose();
    };
    d?.addEventListener("cancel", onCancel);
    return () => d?.removeEventListener("cancel", onCancel);
  }, [props.onClose]);
  return (
    <dialog ref={ref} class={`modal modal-${props.size ?? "small"}`} aria-labelledby="modal-title">
      <header class="modal-head">
        <h2 id="modal-title">{props.title}</h2>
        {props.actions}
        <button type="button" class="icon-btn" onClick={props.onClose} aria-label="Close">
          <Icon name="close" />
        </button>
      </header>
      <div class="modal-body">{props.children}</div>
    </dialog>
  );
}

type Ask =
  | {
      kind: "prompt";
      title: string;
      label: string;
      initial: string;
      confirm: string;
      resolve: (v?: string) => void;
    }
  | {
      kind: "confirm";
      title: string;
      body: string;
      confirm: string;
      danger: boolean;
      resolve: (v: boolean) => void;
    };

let show: ((a: Ask | undefined) => void) | undefined;

/** Asks for one line of text (a name); resolves undefined when cancelled. */
export function promptText(
  title: string,
  label: string,
  initial = "",
  confirm = "Save",
): Promise<string | undefined> {
  return new Promise((resolve) => show?.({ kind: "prompt", title, label, initial, confirm, resolve }));
}

/** Asks to confirm an action; resolves false when cancelled. */
export function confirmAction(title: string, body: string, confirm = "OK", danger = false): Promise<boolean> {
  return new Promise((resolve) => show?.({ kind: "confirm", title, body, confirm, danger, resolve }));
}

/** Renders the prompt/confirm dialogs; mounted once by the app. */
export function DialogHost() {
  const [ask, setAsk] = useState<Ask>();
  const [value, setValue] = useState("");
  useEffect(() => {
    show = (a) => {
      setAsk(a);
      if (a?.kind === "prompt") setValue(a.initial);
    };
    return () => {
      show = undefined;
    };
  }, []);
  if (!ask) return null;
  const close = () => {
    if (ask.kind === "prompt") ask.resolve(undefined);
    else ask.resolve(false);
    setAsk(undefined);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    if (ask.kind === "prompt") {
      if (!value.trim()) return;
      ask.resolve(value.trim());
    } else ask.resolve(true);
    setAsk(undefined);
  };
  return (
    <Modal title={ask.title} onClose={close}>
      <form onSubmit={submit} class="stack">
        {ask.kind === "prompt" ? (
          <label class="field">
            <span>{ask.label}</span>
            <input
              value={value}
              onInput={(e) => setValue(e.currentTarget.value)}
              autofocus
              required
              onFocus={(e) => {
                const v = e.currentTarget.value;
                const dot = v.lastIndexOf(".");
                e.currentTarget.setSelectionRange(0, dot > 0 ? dot : v.length);
              }}
            />
          </label>
        ) : (
          <p>{ask.body}</p>
        )}
        <div class="row end">
          <button type="button" class="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" class={`btn ${ask.kind === "confirm" && ask.danger ? "danger" : "primary"}`}>
            {ask.confirm}
          </button>
        </div>
      </form>
    </Modal>
  );
}
