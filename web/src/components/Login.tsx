import { useState } from "preact/hooks";
import { API, ApiError, setSession } from "../lib/api.ts";
import type { TokenPair } from "../lib/types.ts";

/** The sign-in page; the only screen without a session. */
export function Login() {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const res = await fetch(`${API}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username, password }),
      });
      const body = (await res.json().catch(() => ({}))) as TokenPair & { error?: { message: string } };
      if (!res.ok) {
        const msg =
          res.status === 401
            ? "Wrong username or password."
            : res.status === 429
              ? "Too many attempts. Wait a minute and try again."
              : (body.error?.message ?? `Sign-in failed (HTTP ${res.status}).`);
        throw new ApiError(res.status, "", msg);
      }
      setSession(body);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : "The server cannot be reached.");
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card login-card" onSubmit={submit} aria-labelledby="login-title">
        <div class="brand">
          <span class="logo" aria-hidden="true" />
          <h1 id="login-title">Attic</h1>
        </div>
        <p class="muted">Sign in to your household's files.</p>
        <label class="field">
          <span>Username</span>
          <input
            name="username"
            autocomplete="username"
            autocapitalize="none"
            spellcheck={false}
            required
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Password</span>
          <input
            name="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="btn primary wide" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
