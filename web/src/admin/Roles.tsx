import { useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { messageOf } from "../lib/format.ts";
import { toast } from "../lib/toast.ts";
import type { Role, User } from "../lib/types.ts";
import { PermissionChecks } from "./PermissionChecks.tsx";

const PERMS = ["file:read", "file:write", "file:delete", "org:read", "org:admin", "user:manage", "apikey:*"];

/** Roles: the built-in ones and custom roles (name + permissions), and assigning a role to a user. */
export function Roles({ roles, users, onChanged }: { roles: Role[]; users: User[]; onChanged(): void }) {
  const [name, setName] = useState("");
  const [perms, setPerms] = useState<string[]>(["file:read"]);
  const [assign, setAssign] = useState({ role: "", user: "" });
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      await api("POST", "/roles", { body: { name, description: "", permissions: perms } });
      setName("");
      onChanged();
    } catch (err) {
      toast(`Could not create the role: ${messageOf(err)}`, "error");
    }
  };
  const doAssign = async (e: Event) => {
    e.preventDefault();
    const role = roles.find((r) => (r.id ?? r.name) === assign.role);
    if (!role || !assign.user) return;
    try {
      await api("POST", `/roles/${encodeURIComponent(role.id ?? role.name)}/assign`, {
        body: { user_id: assign.user },
      });
      toast(`Role ${role.name} assigned; it applies from the user's next sign-in or token renewal.`);
      onChanged();
    } catch (err) {
      toast(messageOf(err), "error");
    }
  };
  return (
    <>
      <h2>Roles</h2>
      <ul class="cards">
        {roles.map((r) => (
          <li key={r.id ?? r.name} class="card">
            <strong>{r.name}</strong> <span class="muted">{r.description}</span>
            <span class="mono small block">{r.permissions.join(", ")}</span>
          </li>
        ))}
      </ul>
      <div class="grid2">
        <form class="card stack" onSubmit={create} aria-label="New role">
          <h3>New role</h3>
          <label class="field">
            <span>Name</span>
            <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <PermissionChecks choices={PERMS} value={perms} onChange={setPerms} />
          <button type="submit" class="btn primary">
            Create role
          </button>
        </form>
        <form class="card stack" onSubmit={doAssign} aria-label="Assign a role">
          <h3>Assign a role</h3>
          <label class="field">
            <span>User</span>
            <select
              value={assign.user}
              onChange={(e) => setAssign({ ...assign, user: e.currentTarget.value })}
              required
            >
              <option value="">Choose…</option>
              {users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.username}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Role</span>
            <select
              value={assign.role}
              onChange={(e) => setAssign({ ...assign, role: e.currentTarget.value })}
              required
            >
              <option value="">Choose…</option>
              {roles.map((r) => (
                <option key={r.id ?? r.name} value={r.id ?? r.name}>
                  {r.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="btn">
            Assign
          </button>
        </form>
      </div>
    </>
  );
}
