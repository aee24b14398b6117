import { useEffect, useState } from "preact/hooks";
import { Icon } from "../components/Icon.tsx";
import { confirmAction } from "../components/Modal.tsx";
import { api, claims } from "../lib/api.ts";
import { formatDate, messageOf } from "../lib/format.ts";
import { toast } from "../lib/toast.ts";
import type { ApiKey, ApiKeyList } from "../lib/types.ts";
import { PermissionChecks } from "./PermissionChecks.tsx";

const CHOICES = ["file:read", "file:write", "file:delete", "org:read"];

/** The secret of a key just made: shown this once, with a copy button. */
function FreshKey({ k, onDone }: { k: ApiKey; onDone(): void }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(k.key ?? "");
      toast("Key copied");
    } catch {
      // The clipboard API needs a secure context; on plain http the field stays selectable.
      toast("Select the key and copy it by hand.");
    }
  };
  return (
    <div class="card notice" role="status">
      <h2>Copy your new key now</h2>
      <p>This is the only time it is shown.</p>
      <div class="row">
        <input
          class="mono grow"
          readOnly
          value={k.key}
          aria-label="New API key"
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" class="btn primary" onClick={copy}>
          <Icon name="copy" /> Copy
        </button>
        <button type="button" class="btn" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/** Name, permissions (a subset of the user's) and optional expiry of a new key. */
function NewKeyForm({ onCreated }: { onCreated(k: ApiKey): void }) {
  const [name, setName] = useState("");
  const [perms, setPerms] = useState<string[]>(["file:read"]);
  const [expires, setExpires] = useState("");
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const body = {
        name,
        permissions: perms,
        organization_id: (claims() as { organization_id?: string }).organization_id,
        ...(expires ? { expires_at: new Date(`${expires}T23:59:59`).toISOString() } : {}),
      };
      onCreated(await api<ApiKey>("POST", "/auth/api-keys", { body }));
      setName("");
    } catch (err) {
      toast(`Could not create the key: ${messageOf(err)}`, "error");
    }
  };
  return (
    <form class="card stack" onSubmit={create} aria-label="Create an API key">
      <h2>New key</h2>
      <label class="field">
        <span>Name</span>
        <input
          required
          maxLength={100}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          placeholder="Backup script"
        />
      </label>
      <PermissionChecks choices={CHOICES} value={perms} onChange={setPerms} />
      <label class="field">
        <span>Expires (optional)</span>
        <input type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
      </label>
      <div class="row end">
        <button type="submit" class="btn primary" disabled={perms.length === 0}>
          Create key
        </button>
      </div>
    </form>
  );
}

function KeysTable({ keys, onRevoke }: { keys?: ApiKey[]; onRevoke(k: ApiKey): void }) {
  return (
    <table class="table" aria-label="Your API keys">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Permissions</th>
          <th scope="col" class="wide-only">
            Created
          </th>
          <th scope="col" class="wide-only">
            Last used
          </th>
          <th scope="col">
            <span class="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {keys?.length === 0 ? (
          <tr>
            <td colSpan={5} class="muted">
              No keys yet.
            </td>
          </tr>
        ) : null}
        {keys?.map((k) => (
          <tr key={k.id}>
            <td>{k.name}</td>
            <td class="mono small">{k.permissions.join(", ")}</td>
            <td class="wide-only">{formatDate(k.created_at)}</td>
            <td class="wide-only">{k.last_used_at ? formatDate(k.last_used_at) : "Never"}</td>
            <td>
              <button type="button" class="btn small danger" onClick={() => onRevoke(k)}>
                Revoke
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The user's API keys: create (the secret is shown once), list with last use, revoke. */
export function ApiKeys() {
  const [keys, setKeys] = useState<ApiKey[]>();
  const [error, setError] = useState<string>();
  const [fresh, setFresh] = useState<ApiKey>();
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api<ApiKeyList>("GET", "/auth/api-keys")
      .then((r) => setKeys(r.keys))
      .catch((e) => setError(messageOf(e)));
  }, [version]);
  const revoke = async (k: ApiKey) => {
    const sure = await confirmAction(
      "Revoke key",
      `Revoke “${k.name}”? Programs using it stop at once.`,
      "Revoke",
      true,
    );
    if (!sure) return;
    try {
      await api("DELETE", `/auth/api-keys/${encodeURIComponent(k.id)}`);
      setVersion((v) => v + 1);
    } catch (err) {
      toast(messageOf(err), "error");
    }
  };
  return (
    <section class="page" aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p class="muted">
        Keys let scripts and apps use Attic as you, with only the permissions you give them.
      </p>
      {fresh?.key ? <FreshKey k={fresh} onDone={() => setFresh(undefined)} /> : null}
      <NewKeyForm
        onCreated={(k) => {
          setFresh(k);
          setVersion((v) => v + 1);
        }}
      />
      {error ? <p class="error">{error}</p> : null}
      <KeysTable keys={keys} onRevoke={revoke} />
    </section>
  );
}
