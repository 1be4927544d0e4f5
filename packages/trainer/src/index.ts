export { registerEnvCommands } from './cli/env-commands.js';
