'use client';
import { useCallback, useState } from 'react';

/** Runs a user action against the API and keeps its error message for display; `after` runs either way (a reload). */
export function useAction(): { error: string; run: (action: () => Promise<unknown>, after?: () => void) => Promise<boolean> } {
  const [error, setError] = useState('');
  const run = useCallback(async (action: () => Promise<unknown>, after?: () => void) => {
    setError('');
    try {
      await action();
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    } finally {
      after?.();
    }
  }, []);
  return { error, run };
}
