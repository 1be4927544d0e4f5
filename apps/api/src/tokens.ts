/** DI token for the Prisma client (`Db` from @starpo/db). */
export const DB = Symbol('DB');
/** DI token for the runtime settings (ApiSettings). */
export const SETTINGS = Symbol('SETTINGS');

export interface ApiSettings {
  databaseUrl: string;
  /** Origin of the dashboard, allowed by CORS. */
  webOrigin: string;
}
