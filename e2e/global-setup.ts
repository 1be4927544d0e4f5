export { setupTestPostgres as default } from '@starpo/db/testing';
