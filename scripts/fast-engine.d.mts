// Types of fast-engine.mjs for the tests that import it.
export declare function ensureFastEngine(root: string): { fast: true } | { fast: false; why: string };
