import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { messageOf } from "../lib/format.ts";
import { toast } from "../lib/toast.ts";
import type { CreatedShare, FileRec, Share, ShareList } from "../lib/types.ts";
import { Icon } from "./Icon.tsx";
import { Modal } from "./Modal.tsx";

const EXPIRY: { label: string; days: number }[] = [
  { label: "Never", days: 0 },
  { label: "In 1 day", days: 1 },
  { label: "In 7 days", days: 7 },
  { label: "In 30 days", days: 30 },
];

/**
 * A link for people without an account (grandma): optional password and
 * expiry; the link is shown once, with a copy button; the item's existing
 * links with their downloads, each revocable.
 */
export function LinkShare(p: { item: FileRec; onClose(): void }) {
  const [password, setPassword] = useState("");
  const [days, setDays] = useState(0);
  const [drop, setDrop] = useState(false);
  const [link, setLink] = useState<string>();
  const [links, setLinks] = useState<Share[]>([]);
  const [busy, setBusy] = useState(false);
  const reload = () =>
    api<ShareList>("GET", "/shares").then(
      (r) => setLinks(r.shares.filter((x) => x.file_id === p.item.id)),
      () => setLinks([]),
    );
  useEffect(() => {
    void reload();
  }, [p.item.id]);

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const body = {
        [p.item.type === "directory" ? "directory_id" : "file_id"]: p.item.id,
        ...(password ? { password } : {}),
        ...(days ? { expires_at: new Date(Date.now() + days * 86_400_000).toISOString() } : {}),
        ...(drop ? { allow_upload: true } : {}),
      };
      const made = await api<CreatedShare>("POST", "/shares", { body });
      setLink(`${location.origin}${made.url}`);
      setPassword("");
      void reload();
    } catch (err) {
      toast(messageOf(err), "error");
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (id: string) => {
    try {
      await api("DELETE", `/shares/${id}`);
      void reload();
    } catch (err) {
      toast(messageOf(err), "error");
    }
  };

  return (
    <Modal title={`Link to ${p.item.name}`} onClose={p.onClose}>
      <form class="stack" onSubmit={create}>
        <p class="muted">Anyone with the link can open and download it, without an account.</p>
        <label class="field">
          <span>Password (optional)</span>
          <input type="password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Expires</span>
          <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
            {EXPIRY.map((x) => (
              <option key={x.days} value={x.days}>
                {x.label}
              </option>
            ))}
          </select>
        </label>
        {p.item.type === "directory" ? (
          <label class="row">
            <input type="checkbox" checked={drop} onChange={(e) => setDrop(e.currentTarget.checked)} />
            <span>Let people with the link add files here (a drop folder)</span>
          </label>
        ) : null}
        <div class="row end">
          <button type="submit" class="btn primary" disabled={busy}>
            <Icon name="share" /> Create link
          </button>
        </div>
      </form>
      {link ? (
        <div class="stack">
          <label class="field">
            <span>Your link (shown once)</span>
            <input readOnly value={link} aria-label="Share link" onFocus={(e) => e.currentTarget.select()} />
          </label>
          <button
            type="button"
            class="btn"
            onClick={() => navigator.clipboard?.writeText(link).then(() => toast("Link copied"))}
          >
            <Icon name="copy" /> Copy
          </button>
        </div>
      ) : null}
      {links.length ? (
        <ul class="grant-list" aria-label="Links to this item">
          {links.map((l) => (
            <li key={l.id} class="row">
              <span class="grow">
                {l.allow_upload ? "Drop folder · " : ""}
                {l.has_password ? "With password" : "No password"} ·{" "}
                {l.expires_at ? `expires ${new Date(l.expires_at).toLocaleDateString()}` : "no expiry"} ·{" "}
                {l.download_count} download{l.download_count === 1 ? "" : "s"}
              </span>
              <button type="button" class="btn danger" onClick={() => revoke(l.id)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </Modal>
  );
}
