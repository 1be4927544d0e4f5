import { useEffect } from 'react';

export const APP_NAME = 'StarPO Studio';

/** The tab's title names what the page shows ("lake-live · StarPO Studio"); null keeps the app's name while loading. */
export function useTitle(title: string | null | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · ${APP_NAME}` : APP_NAME;
  }, [title]);
}
