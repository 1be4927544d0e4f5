import { BadRequestException, Controller, NotFoundException, Param } from '@nestjs/common';
import { Route, Valid, type Parsed } from './route.js';
import { describeEnvs, toFieldErrors, type EnvInfo, ROUTES } from '@starpo/contracts';
import { listEnvs } from '@starpo/envs';
import type { EnvPreview } from './env-preview/protocol.js';
import { EnvPreviewService } from './env-preview/preview.service.js';

@Controller()
export class EnvsController {
  private readonly infos = describeEnvs();

  constructor(private readonly previews: EnvPreviewService) {}

  /** Environments with their config JSON Schemas and defaults. */
  @Route(ROUTES.envs)
  list(): EnvInfo[] {
    return this.infos;
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
