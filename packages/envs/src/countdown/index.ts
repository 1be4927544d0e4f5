import { protocolEnvDefinition } from '../protocol/in-process.js';
import { CountdownServer, countdownConfigSchema } from './server.js';

export const countdown = protocolEnvDefinition(new CountdownServer(), countdownConfigSchema);
