import { useState } from "react";
import type { AdminAuthOptions } from "./useAdminAuth";
import { useAdminAuth } from "./useAdminAuth";
import { ConversationsView } from "./ConversationsView";
import { LoginForm } from "./LoginForm";
import { StatsView } from "./StatsView";

type Tab = "conversations" | "figures";

/** The operator page (/admin/): login, then conversations or figures. */
export function AdminApp(options: AdminAuthOptions = {}) {
  const auth = useAdminAuth(options);
  const [tab, setTab] = useState<Tab>("conversations");
  const { api, logout } = auth;

  if (!api) return <LoginForm onLogin={auth.login} error={auth.error} checking={auth.checking} />;

  return (
    <div className="ad-app">
      <header className="ad-header">
        <h1>partchat · operator</h1>
        <nav className="ad-tabs" aria-label="Views">
          <button
            type="button"
            aria-current={tab === "conversations" ? "page" : undefined}
            onClick={() => setTab("conversations")}
            data-testid="admin-tab-conversations"
          >
            Conversations
          </button>
          <button
            type="button"
            aria-current={tab === "figures" ? "page" : undefined}
            onClick={() => setTab("figures")}
            data-testid="admin-tab-figures"
          >
            Figures
          </button>
        </nav>
        <button type="button" className="ad-button" onClick={() => logout()} data-testid="admin-logout">
          Sign out
        </button>
      </header>
      <main className="ad-main">
        {tab === "conversations" ? (
          <ConversationsView api={api} onUnauthorized={logout} />
        ) : (
          <StatsView api={api} onUnauthorized={logout} />
        )}
      </main>
    </div>
  );
}
