import { Suspense } from 'react';
import { Prefetch } from '../../components/Prefetch';
import { chartMetricsPath, compareIds } from '../../lib/compare';
import { Compare } from './Compare';

/** Server part of /compare: starts the runs' and metrics' requests from the HTML, before the scripts load. */
export default async function ComparePage({ searchParams }: { searchParams: Promise<{ runs?: string | string[] }> }) {
  const { runs } = await searchParams;
  const ids = compareIds(typeof runs === 'string' ? runs : null);
  const paths = ids.length >= 2 ? [...ids.map((id) => `/api/runs/${id}`), chartMetricsPath(ids.join(','))] : [];
  return (
    <>
      <Prefetch paths={paths} />
      <Suspense>
        <Compare />
      </Suspense>
    </>
  );
}
