'use client';
import { useCallback, useState } from 'react';

/** Runs a user action (a mutation of lib/queries.ts, which refreshes what it changed) and keeps its error message for display. */
export function useAction(): { error: string; run: (action: () => Promise<unknown>) => Promise<boolean> } {
  const [error, setError] = useState('');
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setError('');
    try {
      await action();
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    }
  }, []);
  return { error, run };
}
