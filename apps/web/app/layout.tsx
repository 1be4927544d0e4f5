import type { ReactNode } from 'react';
import 'uplot/dist/uPlot.min.css';
import './globals.css';
import { ApiProvider } from '../lib/api';
import { Prefetch } from '../components/Prefetch';
import { Shell } from '../components/Shell';
import { apiBase } from '../lib/api-base';

export const metadata = { title: 'StarPO Studio', description: 'Train and inspect multi-turn RL agents (StarPO)' };
// The API URL is read per request, so one build serves any deployment.
export const dynamic = 'force-dynamic';

export default function RootLayout({ children }: { children: ReactNode }) {
  const api = apiBase();
  return (
    <html lang="en">
      <body>
        {/* every page asks who is signed in first */}
        <Prefetch paths={['/api/auth/me']} />
        <ApiProvider base={api}>
          <Shell>{children}</Shell>
        </ApiProvider>
      </body>
    </html>
  );
}
