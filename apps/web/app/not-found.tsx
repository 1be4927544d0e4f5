'use client';
import { useTitle } from '../lib/title';

/** Any address no page answers: titled like every other page, with the way back. */
export default function NotFound() {
  useTitle('Page not found');
  return (
    <div>
      <h1>Page not found</h1>
      <div className="panel empty">
        Nothing lives at this address. <a href="/">Back to the runs</a>.
      </div>
    </div>
  );
}
