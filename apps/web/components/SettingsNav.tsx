'use client';
import { usePathname } from 'next/navigation';

/** The settings pages: the team (members, invites), its registered environments, and the signed-in user's own (API tokens). */
export function SettingsNav() {
  const path = usePathname();
  const link = (href: string, label: string) => (
    <a href={href} className={`button${path === href ? ' active' : ''}`} aria-current={path === href ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <nav className="toolbar" aria-label="settings">
      <h1>Settings</h1>
      {link('/settings', 'Team')}
      {link('/settings/envs', 'Environments')}
      {link('/settings/tokens', 'API tokens')}
    </nav>
  );
}
