import { useState } from "preact/hooks";
import { api, clearSession, updateSession } from "../lib/api.ts";
import { messageOf } from "../lib/format.ts";
import { toast } from "../lib/toast.ts";
import { Modal } from "./Modal.tsx";

/**
 * Changes the password. Shown by itself on first run when the server says
 * the password must change (the generated admin password). Changing it
 * revokes every session, so the user signs in again with the new one; API
 * keys keep working unless the user asks to revoke them too.
 */
export function ChangePassword({ firstRun, onClose }: { firstRun?: boolean; onClose(): void }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [again, setAgain] = useState("");
  const [revokeKeys, setRevokeKeys] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (next !== again) return setError("The two new passwords differ.");
    try {
      await api("POST", "/auth/change-password", {
        body: { current_password: current, new_password: next, revoke_api_keys: revokeKeys },
      });
      updateSession({ must_change_password: false });
      toast("Password changed. Sign in with your new password.");
      clearSession();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <Modal title={firstRun ? "Choose your own password" : "Change password"} onClose={onClose}>
      <form class="stack" onSubmit={submit}>
        {firstRun ? (
          <p>
            You signed in with the password generated when Attic was installed. Choose one of your own: at
            least 10 characters, not your username and not a common password.
          </p>
        ) : null}
        <label class="field">
          <span>Current password</span>
          <input
            type="password"
            autocomplete="current-password"
            required
            value={current}
            onInput={(e) => setCurrent(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>New password</span>
          <input
            type="password"
            autocomplete="new-password"
            minLength={10}
            required
            value={next}
            onInput={(e) => setNext(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>New password again</span>
          <input
            type="password"
            autocomplete="new-password"
            required
            value={again}
            onInput={(e) => setAgain(e.currentTarget.value)}
          />
        </label>
        {firstRun ? null : (
          <label class="row">
            <input
              type="checkbox"
              checked={revokeKeys}
              onChange={(e) => setRevokeKeys(e.currentTarget.checked)}
            />
            <span>Also revoke all my API keys (if someone else may have used this account)</span>
          </label>
        )}
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="row end">
          <button type="button" class="btn" onClick={onClose}>
            {firstRun ? "Not now" : "Cancel"}
          </button>
          <button type="submit" class="btn primary">
            Change password
          </button>
        </div>
      </form>
    </Modal>
  );
}
