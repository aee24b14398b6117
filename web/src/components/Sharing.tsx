import { useEffect, useState } from "preact/hooks";
import { api, homeId } from "../lib/api.ts";
import { messageOf } from "../lib/format.ts";
import { toast } from "../lib/toast.ts";
import type { GrantSubject, Grants, SubjectList } from "../lib/types.ts";
import { Icon } from "./Icon.tsx";
import { Modal } from "./Modal.tsx";

type Level = "read" | "write" | "manage";
interface Row {
  subject_type: GrantSubject["subject_type"];
  subject_id: string;
  subject_name: string;
  level: Level;
}

const LEVELS: { value: Level; label: string }[] = [
  { value: "read", label: "Can view" },
  { value: "write", label: "Can edit" },
  { value: "manage", label: "Can manage" },
];
const keyOf = (r: { subject_type: string; subject_id: string }) => `${r.subject_type}:${r.subject_id}`;

/**
 * Who may see and change a folder (docs/access.md): its own list, or the one
 * it inherits, which saving here replaces with a list of its own. One screen:
 * rows of people or groups with a level, an "add" row, and "inherit again".
 */
export function Sharing(p: { dirId: string | undefined; name: string; onClose(): void; onChanged?(): void }) {
  const [grants, setGrants] = useState<Grants>();
  const [rows, setRows] = useState<Row[]>([]);
  const [subjects, setSubjects] = useState<GrantSubject[]>([]);
  const [adding, setAdding] = useState("");
  const [addLevel, setAddLevel] = useState<Level>("read");
  const [busy, setBusy] = useState(false);
  const query = { directory_id: p.dirId ?? "" };

  const show = (g: Grants) => {
    setGrants(g);
    setRows(g.grants.map((x) => ({ ...x })));
  };
  useEffect(() => {
    api<Grants>("GET", "/grants", { query }).then(show, (e) => toast(messageOf(e), "error"));
    api<SubjectList>("GET", "/grants/subjects").then(
      (r) => setSubjects(r.subjects),
      () => setSubjects([]),
    );
  }, [p.dirId]);

  const save = async () => {
    setBusy(true);
    try {
      const body = {
        directory_id: p.dirId ?? null,
        grants: rows.map((r) => ({
          subject_type: r.subject_type,
          ...(r.subject_type === "everyone" ? {} : { subject_id: r.subject_id }),
          level: r.level,
        })),
      };
      show(await api<Grants>("PUT", "/grants", { body }));
      toast(`Sharing of “${p.name}” saved`);
      p.onChanged?.();
    } catch (e) {
      toast(messageOf(e), "error");
    } finally {
      setBusy(false);
    }
  };
  const inherit = async () => {
    setBusy(true);
    try {
      show(await api<Grants>("DELETE", "/grants", { query }));
      toast(`“${p.name}” now follows its parent folder`);
      p.onChanged?.();
    } catch (e) {
      toast(messageOf(e), "error");
    } finally {
      setBusy(false);
    }
  };
  const add = () => {
    const s = subjects.find((x) => keyOf(x) === adding);
    if (!s || rows.some((r) => keyOf(r) === adding)) return;
    setRows([...rows, { ...s, level: addLevel }]);
    setAdding("");
  };
  const canManage = grants?.your_level === "manage";
  const available = subjects.filter((s) => !rows.some((r) => keyOf(r) === keyOf(s)));

  return (
    <Modal title={`Sharing: ${p.name}`} onClose={p.onClose} size="wide">
      {!grants ? (
        <p class="muted">Loading…</p>
      ) : (
        <div class="stack sharing">
          <p class="muted" data-testid="sharing-summary">
            {grants.personal
              ? "In a personal folder: its owner always manages it; nobody else sees it unless listed here."
              : "Organization admins always manage this folder."}{" "}
            {grants.own
              ? "This folder has its own list."
              : "This folder follows its parent; saving gives it a list of its own."}
          </p>
          <ul class="grant-list" aria-label="Who has access">
            {rows.length === 0 ? <li class="muted">Nobody else.</li> : null}
            {rows.map((r, i) => (
              <li key={keyOf(r)} class="row">
                <Icon
                  name={r.subject_type === "user" ? "user" : r.subject_type === "group" ? "share" : "home"}
                />
                <span class="grow">
                  {r.subject_name}
                  {r.subject_type === "group" ? <span class="muted"> (group)</span> : null}
                </span>
                <select
                  aria-label={`Access of ${r.subject_name}`}
                  value={r.level}
                  disabled={!canManage}
                  onChange={(e) => {
                    const next = [...rows];
                    next[i] = { ...r, level: e.currentTarget.value as Level };
                    setRows(next);
                  }}
                >
                  {LEVELS.map((l) => (
                    <option key={l.value} value={l.value}>
                      {l.label}
                    </option>
                  ))}
                </select>
                {canManage ? (
                  <button
                    type="button"
                    class="icon-btn"
                    aria-label={`Remove ${r.subject_name}`}
                    onClick={() => setRows(rows.filter((_, j) => j !== i))}
                  >
                    <Icon name="close" />
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
          {canManage ? (
            <>
              <div class="row">
                <select
                  aria-label="Add a person or group"
                  value={adding}
                  onChange={(e) => setAdding(e.currentTarget.value)}
                  class="grow"
                >
                  <option value="">Add a person or group…</option>
                  {available.map((s) => (
                    <option key={keyOf(s)} value={keyOf(s)}>
                      {s.subject_name}
                      {s.subject_type === "group" ? " (group)" : ""}
                    </option>
                  ))}
                </select>
                <select
                  aria-label="Access to add"
                  value={addLevel}
                  onChange={(e) => setAddLevel(e.currentTarget.value as Level)}
                >
                  {LEVELS.map((l) => (
                    <option key={l.value} value={l.value}>
                      {l.label}
                    </option>
                  ))}
                </select>
                <button type="button" class="btn" onClick={add} disabled={!adding}>
                  <Icon name="plus" /> Add
                </button>
              </div>
              <div class="row end">
                {grants.own && p.dirId !== undefined && p.dirId !== homeId() ? (
                  <button type="button" class="btn" onClick={inherit} disabled={busy}>
                    Follow parent folder
                  </button>
                ) : null}
                <button type="button" class="btn primary" onClick={save} disabled={busy}>
                  Save
                </button>
              </div>
            </>
          ) : (
            <p class="muted">You can view this list; only people who manage the folder can change it.</p>
          )}
        </div>
      )}
    </Modal>
  );
}
