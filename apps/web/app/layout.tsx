import type { ReactNode } from 'react';
import './globals.css';

export const metadata = { title: 'StarPO Studio', description: 'Train and inspect multi-turn RL agents (StarPO)' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="top">
          <span className="brand">StarPO Studio</span>
          <nav>
            <a href="/">Home</a>
            <a href="/envs">Environments</a>
          </nav>
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
