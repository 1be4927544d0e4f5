#!/usr/bin/env node
import { Command } from 'commander';
import { settingsOrExit, ValidationError } from '@starpo/contracts';
import { registerEnvCommands } from './env-commands.js';
import { registerEvalCommand } from './eval-command.js';
import { registerPretrainCommand } from './pretrain-command.js';
import { registerTrainCommand } from './train-command.js';
import { cliSettings } from '../settings.js';

const settings = settingsOrExit('starpo', cliSettings);

const program = new Command();
program.name('starpo').description('StarPO Studio command line: environments, pre-training and training').showHelpAfterError();
registerEnvCommands(program, (line) => console.log(line));
registerPretrainCommand(program, (line) => console.log(line));
registerTrainCommand(program, (line) => console.log(line));
registerEvalCommand(program, (line) => console.log(line));

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof ValidationError) {
    console.error(e.message);
    for (const f of e.fields) console.error(`  ${f.path}: ${f.message}`);
  } else {
    console.error(`error: ${(e as Error).message}`);
    if (settings.STARPO_DEBUG) console.error((e as Error).stack);
  }
  process.exit(1);
}
