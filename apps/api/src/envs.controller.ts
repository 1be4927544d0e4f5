import { BadRequestException, Controller, Inject, NotFoundException, Param, Req } from '@nestjs/common';
import type { Request } from 'express';
import { Route, Valid, type Parsed } from './route.js';
import { toFieldErrors, type EnvInfo, ROUTES } from '@starpo/contracts';
import { listEnvs } from '@starpo/envs';
import { CurrentActor, type Actor } from './auth/actor.js';
import { credentials } from './auth/auth.guard.js';
import { AuthService } from './auth/auth.service.js';
import type { EnvPreview } from './env-preview/protocol.js';
import { EnvPreviewService } from './env-preview/preview.service.js';
import { EnvRegistrationsService } from './env-registrations.service.js';

@Controller()
export class EnvsController {
  constructor(
    private readonly previews: EnvPreviewService,
    @Inject(EnvRegistrationsService) private readonly registrations: EnvRegistrationsService,
    @Inject(AuthService) private readonly auth: AuthService,
  ) {}

  /**
   * The built-in environments with their config JSON Schemas and defaults (public: the environment
   * gallery is open to visitors), and for a signed-in caller the team's registered ones.
   */
  @Route(ROUTES.envs)
  async list(@Req() req: Request): Promise<EnvInfo[]> {
    const { bearer, cookie } = credentials(req);
    return this.registrations.list(await this.auth.resolve(bearer, cookie));
  }

  /** 201 with status pending: a worker, never the API, fetches its description. */
  @Route(ROUTES.registerEnv)
  register(@CurrentActor() a: Actor, @Valid('body') body: Parsed<typeof ROUTES.registerEnv, 'body'>): Promise<EnvInfo> {
    return this.registrations.register(a, body);
  }

  @Route(ROUTES.deleteEnv)
  remove(@CurrentActor() a: Actor, @Param('name') name: string): Promise<void> {
    return this.registrations.remove(a, name);
  }

  /** Initial state of an environment for a seed: observation, instructions, actions and snapshot. */
  @Route(ROUTES.envPreview)
  async preview(
    @Param('name') name: string,
    @Valid('query') { seed: seedText = '0', config: configText }: Parsed<typeof ROUTES.envPreview, 'query'>,
  ): Promise<EnvPreview> {
    const def = listEnvs().find((d) => d.name === name);
    if (!def) throw new NotFoundException(`unknown environment "${name}"`);
    const seed = Number(seedText);
    if (!Number.isSafeInteger(seed)) {
      throw new BadRequestException({ message: 'seed must be an integer', details: [{ path: 'seed', message: 'must be an integer' }] });
    }
    let config: unknown = {};
    try {
      config = configText ? JSON.parse(configText) : {};
    } catch {
      throw new BadRequestException({ message: 'config is not valid JSON', details: [{ path: 'config', message: 'not valid JSON' }] });
    }
    const parsed = def.configSchema.safeParse(config);
    if (!parsed.success) throw new BadRequestException({ message: 'invalid environment config', details: toFieldErrors(parsed.error) });
    // generation can take a while (Sokoban's reverse play): it runs on the preview thread, under a time limit
    return this.previews.render({ name, seed, config: parsed.data as Record<string, unknown> });
  }
}
