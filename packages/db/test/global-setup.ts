import { setupTestPostgres } from '../src/testing.js';

export default setupTestPostgres;
