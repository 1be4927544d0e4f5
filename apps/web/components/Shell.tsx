'use client';
import { usePathname, useRouter } from 'next/navigation';
import { useEffect, useState, type ReactNode } from 'react';
import { attachSocket, useApi } from '../lib/api';
import { useMe, useSignOut } from '../lib/queries';
import { denied } from '../lib/roles';
import { GatedLink } from './Gated';

const OPEN = ['/login', '/envs'];

/** Top bar with the team, the user's role and sign-out; sends signed-out users to /login. */
export function Shell({ children }: { children: ReactNode }) {
  const { socket } = useApi();
  const me = useMe();
  const signOut = useSignOut();
  const path = usePathname();
  const router = useRouter();
  const [offline, setOffline] = useState(false);
  const [menu, setMenu] = useState(false); // the nav's open state on narrow screens
  useEffect(() => setMenu(false), [path]);
  useEffect(() => {
    if (me === null && !OPEN.some((p) => path.startsWith(p))) router.replace(`/login?next=${encodeURIComponent(path)}`);
  }, [me, path, router]);
  useEffect(() => {
    if (!me) return;
    const down = () => setOffline(true);
    const up = () => setOffline(false);
    // the offline notice can wait for the page's first drawing
    return attachSocket(
      socket,
      (s) => {
        s.on('disconnect', down);
        s.on('connect_error', down);
        s.on('connect', up);
        return () => {
          s.off('disconnect', down);
          s.off('connect_error', down);
          s.off('connect', up);
        };
      },
      { idle: true },
    );
  }, [me, socket]);
  return (
    <>
      <header className={`top${menu ? ' open' : ''}`}>
        <a className="brand" href="/">
          StarPO Studio
        </a>
        <button type="button" className="menu-toggle" aria-expanded={menu} aria-controls="main-nav" onClick={() => setMenu(!menu)}>
          Menu
        </button>
        <nav id="main-nav" aria-label="main">
          {/* signed out: only the pages that open without an account, not links that bounce to the login */}
          {me !== null ? (
            <>
              <a href="/">Runs</a>
              <GatedLink href="/runs/new" className="nav-link" reason={me ? denied(me, 'launch') : null}>
                New run
              </GatedLink>
              <a href="/compare">Compare</a>
              <a href="/workers">Workers</a>
            </>
          ) : null}
          <a href="/envs">Environments</a>
          {me ? <a href="/settings">Settings</a> : null}
          {me === null && !path.startsWith('/login') ? <a href="/login">Sign in</a> : null}
        </nav>
        <span className="spacer" />
        {me ? (
          <span className="who" data-testid="who">
            {me.user.name} · {me.team.name} · <b>{me.role}</b>{' '}
            <button className="link" onClick={() => signOut.mutate()}>
              Sign out
            </button>
          </span>
        ) : null}
      </header>
      {offline ? (
        <div className="banner" role="status" data-testid="offline-banner">
          Live connection lost — reconnecting; the page will catch up.
        </div>
      ) : null}
      <main>{children}</main>
    </>
  );
}
