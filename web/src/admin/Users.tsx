import { useEffect, useState } from "preact/hooks";
import { api, claims } from "../lib/api.ts";
import { formatDate, messageOf } from "../lib/format.ts";
import { toast } from "../lib/toast.ts";
import type { Role, RoleList, User, UserList } from "../lib/types.ts";
import { Roles } from "./Roles.tsx";

function roleNames(u: User): string {
  return u.roles.map((r) => r.name).join(", ");
}

/** Users of the organization: add one with a role, deactivate or reactivate; roles below. */
export function Users() {
  const [users, setUsers] = useState<User[]>();
  const [roles, setRoles] = useState<Role[]>([]);
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const [form, setForm] = useState({ username: "", email: "", password: "", role: "Member" });
  const reload = () => setVersion((v) => v + 1);
  useEffect(() => {
    api<UserList>("GET", "/users", { query: { limit: 500 } })
      .then((r) => setUsers(r.users))
      .catch((e) => setError(messageOf(e)));
    api<RoleList>("GET", "/roles")
      .then((r) => setRoles(r.roles))
      .catch(() => {});
  }, [version]);
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      await api("POST", "/users", { body: form });
      toast(`Added ${form.username}`);
      setForm({ username: "", email: "", password: "", role: form.role });
      reload();
    } catch (err) {
      toast(`Could not add the user: ${messageOf(err)}`, "error");
    }
  };
  const setActive = async (u: User, active: boolean) => {
    try {
      await api("PUT", `/users/${encodeURIComponent(u.id)}`, { body: { is_active: active } });
      reload();
    } catch (err) {
      toast(messageOf(err), "error");
    }
  };
  const field = (k: keyof typeof form) => ({
    value: form[k],
    onInput: (e: Event) => setForm({ ...form, [k]: (e.currentTarget as HTMLInputElement).value }),
  });
  return (
    <section class="page" aria-labelledby="users-title">
      <h1 id="users-title">Users & roles</h1>
      {error ? <p class="error">{error}</p> : null}
      <table class="table" aria-label="Users">
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col">Roles</th>
            <th scope="col" class="wide-only">
              Since
            </th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {users?.map((u) => (
            <tr key={u.id}>
              <td>
                <strong>{u.username}</strong>
                <span class="muted small block">{u.email}</span>
              </td>
              <td>{roleNames(u)}</td>
              <td class="wide-only">{formatDate(u.created_at)}</td>
              <td>
                {u.id === claims().sub ? (
                  <span class="muted small">You</span>
                ) : (
                  <button type="button" class="btn small" onClick={() => setActive(u, u.is_active === false)}>
                    {u.is_active === false ? "Reactivate" : "Deactivate"}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="card stack" onSubmit={create} aria-label="Add a user">
        <h2>Add a user</h2>
        <div class="grid2">
          <label class="field">
            <span>Username</span>
            <input required pattern="[A-Za-z0-9_.\-]{3,32}" autocomplete="off" {...field("username")} />
          </label>
          <label class="field">
            <span>Email</span>
            <input required type="email" autocomplete="off" {...field("email")} />
          </label>
          <label class="field">
            <span>Password</span>
            <input
              required
              type="password"
              minLength={10}
              autocomplete="new-password"
              {...field("password")}
            />
          </label>
          <label class="field">
            <span>Role</span>
            <select {...field("role")} onChange={(e) => setForm({ ...form, role: e.currentTarget.value })}>
              {(roles.length ? roles : [{ name: "Member" }, { name: "Admin" }]).map((r) => (
                <option key={r.name} value={r.name}>
                  {r.name}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div class="row end">
          <button type="submit" class="btn primary">
            Add user
          </button>
        </div>
      </form>
      <Roles roles={roles} users={users ?? []} onChanged={reload} />
    </section>
  );
}
