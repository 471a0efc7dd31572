import { useId, useState } from "react";
import type { FormEvent } from "react";

export interface LoginFormProps {
  onLogin: (token: string) => Promise<boolean>;
  error: string | null;
  checking: boolean;
}

/** The token form. The token is checked against /api/admin/whoami before it is kept. */
export function LoginForm({ onLogin, error, checking }: LoginFormProps) {
  const [token, setToken] = useState("");
  const inputId = useId();
  const errorId = useId();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void onLogin(token);
  };

  return (
    <main className="ad-login">
      <form className="ad-card ad-login__form" onSubmit={submit} data-testid="admin-login" aria-busy={checking}>
        <h1>partchat · operator</h1>
        <p className="ad-muted">
          Sign in with the server&apos;s admin token (<code>PARTCHAT_ADMIN_TOKEN</code>). It is kept in this tab only
          and sent only as an Authorization header.
        </p>
        <label htmlFor={inputId}>Admin token</label>
        <input
          id={inputId}
          type="password"
          autoComplete="current-password"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          data-testid="admin-token"
          autoFocus
        />
        {error && (
          <p id={errorId} className="ad-error" role="alert" data-testid="admin-login-error">
            {error}
          </p>
        )}
        <button type="submit" className="ad-button ad-button--primary" disabled={checking} data-testid="admin-login-submit">
          {checking ? "Checking…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
