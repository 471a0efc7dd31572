import { useState } from "react";
import type { AdminAuthOptions } from "./useAdminAuth";
import { useAdminAuth } from "./useAdminAuth";
import { ConversationsView } from "./ConversationsView";
import { LoginForm } from "./LoginForm";
import { StatsView } from "./StatsView";

type Tab = "conversations" | "figures";
const TABS: [Tab, string][] = [
  ["conversations", "Conversations"],
  ["figures", "Figures"],
];

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
          {TABS.map(([id, label]) => (
            <button
              key={id}
              type="button"
              aria-current={tab === id ? "page" : undefined}
              onClick={() => setTab(id)}
              data-testid={`admin-tab-${id}`}
            >
              {label}
            </button>
          ))}
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
