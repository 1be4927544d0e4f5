import { z as zod } from 'zod';

// In a browser, validate without generated code: zod probes `new Function`, which the dashboard's
// Content-Security-Policy reports as a violation, and its forms are too small to gain from it. zod
// probes once, when the first object schema is built, so the setting must come before that. A side
// effect: package.json's `sideEffects` lists this module, so a bundler keeps it.
if ('window' in globalThis) zod.config({ jitless: true });

// Every module of this package and of @starpo/contracts takes `z` from this one (`@starpo/envs/zod`).
// A binding of this module (not a re-export of zod's), so a bundler cannot link past it and build a
// schema before the setting above has run.
export import z = zod;
