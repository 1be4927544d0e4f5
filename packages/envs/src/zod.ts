import { z } from 'zod';

// In a browser, validate without generated code: zod probes `new Function`, which the dashboard's
// Content-Security-Policy reports as a violation, and its forms are too small to gain from it.
if ('window' in globalThis) z.config({ jitless: true });
