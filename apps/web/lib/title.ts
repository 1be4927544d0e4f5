import { useEffect } from 'react';

/** Also the default title in app/layout.tsx (a server module, which cannot import this hook's file). */
export const APP_NAME = 'StarPO Studio';

/** The tab's title names what the page shows ("lake-live · StarPO Studio"); null keeps the app's name while loading. */
export function useTitle(title: string | null | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · ${APP_NAME}` : APP_NAME;
  }, [title]);
}
