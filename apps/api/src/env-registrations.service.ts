import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import {
  describeEnvs,
  isBuiltinEnv,
  registeredEnvInfo,
  registeredEnvName,
  registrationEndpoint,
  ValidationError,
  withEnvEndpoint,
  type EnvInfo,
  type RegisterEnvRequest,
  type RunConfigOverrides,
} from '@starpo/contracts';
import {
  dbSettings,
  deleteTeamEnvironment,
  findTeamEnvironment,
  folderUnderRoots,
  insertEnvironment,
  teamEnvironments,
  type Db,
} from '@starpo/db';
import type { Actor } from './auth/actor.js';
import { DB } from './di-tokens.js';

/**
 * A team's registered environments. The API only stores and reads them: it never reaches a URL nor
 * starts a command (a worker describes each new one), so a registration cannot make the API
 * request anything on a user's behalf.
 */
@Injectable()
export class EnvRegistrationsService {
  private readonly builtins = describeEnvs();

  constructor(@Inject(DB) private readonly db: Db) {}

  /** The built-in environments, then the team's registered ones. */
  /** The built-ins, then the team's registered environments (none for a signed-out caller). */
  async list(actor: Actor | null): Promise<EnvInfo[]> {
    if (!actor) return this.builtins;
    return [...this.builtins, ...(await teamEnvironments(this.db, actor.teamId)).map(registeredEnvInfo)];
  }

  /** Stores the registration as pending; a command's cwd must lie under ENV_ROOTS, checked by its text as model.base is. */
  async register(actor: Actor, req: RegisterEnvRequest, envRoots = dbSettings().envRoots): Promise<EnvInfo> {
    if (isBuiltinEnv(req.name)) throw new ConflictException(`"${req.name}" is a built-in environment; choose another name`);
    let endpoint: { url: string } | { command: string[]; cwd: string };
    if (req.url) endpoint = { url: req.url };
    else {
      const cwd = folderUnderRoots(req.cwd!, envRoots);
      if (!cwd) throw new ValidationError([{ path: 'cwd', message: `"${req.cwd}" is not a folder under ENV_ROOTS` }], 'request');
      endpoint = { command: req.command!, cwd };
    }
    const row = await insertEnvironment(this.db, { teamId: actor.teamId, name: req.name, createdBy: actor.userId, ...endpoint });
    if (!row) throw new ConflictException(`the team has an environment named "${req.name}"`);
    return registeredEnvInfo(row);
  }

  async remove(actor: Actor, name: string): Promise<void> {
    if (!(await deleteTeamEnvironment(this.db, actor.teamId, name))) throw new NotFoundException(`no registered environment "${name}"`);
  }

  /**
   * A run's overrides with a registered environment's address in `env.remote` when `env.name` names
   * one of the team's (400 until a worker has described it). Other names are left to the config's checks.
   */
  async resolve(actor: Actor, overrides: RunConfigOverrides): Promise<RunConfigOverrides> {
    const name = registeredEnvName(overrides);
    const row = name ? await findTeamEnvironment(this.db, actor.teamId, name) : null;
    if (!row) return overrides;
    if (row.status !== 'ready') {
      const why = row.status === 'failed' ? `its description failed: ${row.error}` : 'no worker has described it yet';
      throw new ValidationError([{ path: 'env.name', message: `environment "${name}" is not ready: ${why}` }]);
    }
    return withEnvEndpoint(overrides, registrationEndpoint(row));
  }
}
