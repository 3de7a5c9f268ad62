import { useEffect, useState, type FormEvent } from 'react';
import { api, apiKey, whenUnauthorized } from './api.ts';
import { href, useRoute } from './router.ts';
import { WorkflowsPage } from './pages/WorkflowsPage.tsx';
import { EditorPage } from './pages/EditorPage.tsx';
import { RunsPage } from './pages/RunsPage.tsx';
import { RunPage } from './pages/RunPage.tsx';
import { InboxPage } from './pages/inbox/InboxPage.tsx';
import { TicketPage } from './pages/ticket/TicketPage.tsx';
import { CalendarsPage } from './pages/CalendarsPage.tsx';
import { CalendarPage } from './pages/CalendarPage.tsx';
import { ApprovalsPage } from './pages/ApprovalsPage.tsx';
import { SlaPoliciesPage } from './pages/SlaPoliciesPage.tsx';
import { SlaPolicyPage } from './pages/SlaPolicyPage.tsx';
import { SlaQueuePage } from './pages/SlaQueuePage.tsx';
import { CalendarsProvider } from './ui/calendars.tsx';
import { FeedIndicator, LiveProvider } from './ui/live.tsx';
import { MePicker, MeProvider } from './ui/me.tsx';
import { MembersProvider } from './ui/members.tsx';
import { KnowledgePage } from './pages/KnowledgePage.tsx';
import { ArticlePage } from './pages/ArticlePage.tsx';
import { AiSettingsPage } from './pages/AiSettingsPage.tsx';

export function App() {
  const [key, setKey] = useState(apiKey.get());
  useEffect(() => {
    whenUnauthorized(() => {
      apiKey.clear();
      setKey(null);
    });
  }, []);
  if (!key) return <KeyScreen onKey={(k) => setKey(k)} />;
  return <Signed onSignOut={() => { apiKey.clear(); setKey(null); }} />;
}

function Signed({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  return (
    <MembersProvider>
      <MeProvider>
        <LiveProvider>
          <CalendarsProvider>
            <div className="app">
              <header className="top">
                <a className="brand" href={href.workflows()}>Deskflow console</a>
                <nav aria-label="Console">
                  <a href={href.inbox()} className={route.page === 'inbox' || route.page === 'ticket' ? 'active' : ''}>Inbox</a>
                  <a href={href.workflows()} className={route.page === 'workflows' || route.page === 'editor' || route.page.startsWith('run') ? 'active' : ''}>Workflows</a>
                  <a href={href.calendars()} className={route.page.startsWith('calendar') ? 'active' : ''}>Calendars</a>
                  <a href={href.approvals()} className={route.page === 'approvals' ? 'active' : ''}>Approvals</a>
                  <a href={href.sla()} className={route.page === 'sla' || route.page === 'slaPolicy' ? 'active' : ''}>SLA policies</a>
                  <a href={href.slaQueue()} className={route.page === 'slaQueue' ? 'active' : ''}>Breaks next</a>
                  <a href={href.knowledge()} className={route.page === 'knowledge' || route.page === 'article' ? 'active' : ''}>Knowledge</a>
                  <a href={href.ai()} className={route.page === 'ai' ? 'active' : ''}>AI owner</a>
                </nav>
                <FeedIndicator />
                <MePicker />
                <button type="button" className="link" onClick={onSignOut}>Forget key</button>
              </header>
              <main>
                {route.page === 'workflows' && <WorkflowsPage />}
                {route.page === 'editor' && <EditorPage key={route.workflowId} workflowId={route.workflowId} />}
                {route.page === 'runs' && <RunsPage key={route.workflowId} workflowId={route.workflowId} />}
                {route.page === 'run' && <RunPage key={route.executionId} workflowId={route.workflowId} executionId={route.executionId} />}
                {route.page === 'inbox' && <InboxPage viewId={route.view} focusSearch={route.search} />}
                {route.page === 'ticket' && <TicketPage key={route.ticketId} ticketId={route.ticketId} />}
                {route.page === 'calendars' && <CalendarsPage />}
                {route.page === 'calendar' && <CalendarPage key={route.calendarId ?? 'new'} calendarId={route.calendarId} />}
                {route.page === 'approvals' && <ApprovalsPage />}
                {route.page === 'sla' && <SlaPoliciesPage />}
                {route.page === 'slaPolicy' && <SlaPolicyPage key={route.policyId ?? 'new'} policyId={route.policyId} />}
                {route.page === 'slaQueue' && <SlaQueuePage />}
                {route.page === 'knowledge' && <KnowledgePage />}
                {route.page === 'article' && <ArticlePage key={route.articleId ?? 'new'} articleId={route.articleId} />}
                {route.page === 'ai' && <AiSettingsPage />}
              </main>
            </div>
          </CalendarsProvider>
        </LiveProvider>
      </MeProvider>
    </MembersProvider>
  );
}

function KeyScreen({ onKey }: { onKey: (key: string) => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (await api.checkKey(value)) {
        apiKey.set(value);
        onKey(value.trim());
      } else {
        setError('This key was refused. Check it (keys look like dfk_…) or ask for a new one.');
      }
    } catch {
      setError('Deskflow could not be reached.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="key-screen">
      <form onSubmit={submit} className="card">
        <h1>Deskflow console</h1>
        <p>Draw, try and watch your workspace's automations. Paste an API key of the workspace; it is kept in this tab only and forgotten when the tab closes.</p>
        <label>
          API key
          <input name="apiKey" type="password" autoComplete="off" spellCheck={false} value={value} onChange={(e) => setValue(e.target.value)} placeholder="dfk_…" autoFocus required />
        </label>
        {error && <p className="error-text" role="alert">{error}</p>}
        <button type="submit" className="primary" disabled={busy || value.trim() === ''}>Open the console</button>
      </form>
    </div>
  );
}
