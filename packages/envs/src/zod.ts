import { z } from 'zod';

// In a browser, validate without generated code: zod probes `new Function`, which the dashboard's
// Content-Security-Policy reports as a violation, and its forms are too small to gain from it.
// Every module of this package and of @starpo/contracts takes `z` from this one (`@starpo/envs/zod`),
// so the setting precedes any validation whichever module a bundler loads first.
if ('window' in globalThis) z.config({ jitless: true });

export { z };
