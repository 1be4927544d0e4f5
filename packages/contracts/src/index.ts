import './jitless-in-browser.js';
export * from './run-config.js';
export * from './presets.js';
export * from './errors.js';
export * from './build-config.js';
export * from './envs-info.js';
export * from './api.js';
export * from './events.js';
export * from './storable.js';
