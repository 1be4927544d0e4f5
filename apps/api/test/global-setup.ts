import { setupTestPostgres } from '@starpo/db/testing';

export default setupTestPostgres;
