// `z` configured for the browser once, by the environments package (see its zod.ts).
export { z } from '@starpo/envs/zod';
