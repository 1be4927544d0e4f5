import type { ReactNode } from 'react';
import 'uplot/dist/uPlot.min.css';
import './globals.css';
import { ApiProvider } from '../lib/api';
import { Prefetch } from '../components/Prefetch';
import { Shell } from '../components/Shell';
import { apiBase } from '../lib/api-base';

// No metadata title: Next streams it in after the page has set its own (useTitle in lib/title.ts)
// and would put "StarPO Studio" back; the <title> below is the default the pages change.
export const metadata = { description: 'Train and inspect multi-turn RL agents (StarPO)' };
// The API URL is read per request, so one build serves any deployment; the scripts' nonce is new per request too (proxy.ts).
export const dynamic = 'force-dynamic';

export default function RootLayout({ children }: { children: ReactNode }) {
  const api = apiBase();
  return (
    <html lang="en">
      <head>
        <title>StarPO Studio</title>
      </head>
      <body>
        {/* every page asks who is signed in first */}
        <Prefetch paths={['/api/auth/session']} />
        <ApiProvider base={api}>
          <Shell>{children}</Shell>
        </ApiProvider>
      </body>
    </html>
  );
}
