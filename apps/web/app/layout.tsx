import type { ReactNode } from 'react';
import 'uplot/dist/uPlot.min.css';
import './globals.css';
import { ApiProvider } from '../lib/api';
import { Shell } from '../components/Shell';

export const metadata = { title: 'StarPO Studio', description: 'Train and inspect multi-turn RL agents (StarPO)' };
// The API URL is read per request, so one build serves any deployment.
export const dynamic = 'force-dynamic';

export default function RootLayout({ children }: { children: ReactNode }) {
  const api = process.env.PUBLIC_API_URL ?? process.env.API_URL ?? 'http://127.0.0.1:3001';
  return (
    <html lang="en">
      <body>
        <ApiProvider base={api}>
          <Shell>{children}</Shell>
        </ApiProvider>
      </body>
    </html>
  );
}
