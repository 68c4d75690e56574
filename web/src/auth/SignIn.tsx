/** The sign-in form: generateToken with the user's name and password, then who they are. */
import { useState } from "preact/hooks";
import type { RestClient } from "../api/client.js";
import { generateToken, self } from "../api/portal.js";
import { errorText } from "../app/errors.js";
import type { Session } from "./session.js";

export function SignIn(props: { api: RestClient; onSignedIn: (session: Session) => void }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { token, expires } = await generateToken(props.api, username.trim(), password, location.origin);
      const who = await self(props.api, token);
      props.onSignedIn({ token, expires, username: who.username, role: who.role });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card signin" onSubmit={submit} aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in to Strata</h1>
      <label>
        Username
        <input name="username" autoComplete="username" required value={username} onInput={(e) => setUsername(e.currentTarget.value)} />
      </label>
      <label>
        Password
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      <p class="error" role="alert">
        {error}
      </p>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
