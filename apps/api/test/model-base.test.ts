import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signupOwner, startTestApi, type TestApi, type TestUser } from './helpers.js';

describe('model.base is checked at launch, before any file is touched', () => {
  let t: TestApi;
  let owner: TestUser;
  const root = '/srv/starpo-models-that-need-not-exist';
  const savedRoots = process.env.MODEL_ROOTS;
  const launch = (base: string) =>
    t.http
      .post('/api/runs')
      .set('Authorization', owner.auth)
      .send({ preset: 'quick-cpu', config: { env: { name: 'bandit' }, model: { base } } });
  beforeAll(async () => {
    process.env.MODEL_ROOTS = root;
    t = await startTestApi();
    owner = await signupOwner(t);
    const rivals = await t.db.team.create({ data: { name: 'rivals' } });
    await t.db.baseModel.create({ data: { teamId: rivals.id, name: 'rival-base', architecture: {}, tokenizer: {} } });
    await t.db.baseModel.create({ data: { teamId: owner.teamId, name: 'our-base', architecture: {}, tokenizer: {} } });
  });
  afterAll(async () => {
    process.env.MODEL_ROOTS = savedRoots;
    await t.close();
  });

  it('refuses any other path or name with the same 400, whether it exists or not', async () => {
    for (const base of ['/etc', '/no/such/folder', `${root}/../etc`, '../../etc', 'etc', './models/bases/sokoban-tiny', 'rival-base']) {
      const res = await launch(base).expect(400);
      expect(res.body, base).toEqual({
        error: 'validation_failed',
        message: expect.any(String),
        details: [
          {
            path: 'model.base',
            message: `"${base}" is not a shipped base (starpo-base/…), starpo-tiny/<size>, a base model of this team, or an absolute folder under MODEL_ROOTS`,
          },
        ],
      });
    }
    expect(await t.db.run.count()).toBe(0);
  });

  it('refuses a starpo-tiny size that does not exist, naming the sizes there are', async () => {
    for (const base of ['starpo-tiny/huge', 'starpo-tiny/__proto__', 'starpo-tiny/constructor', 'starpo-tiny/']) {
      const res = await launch(base).expect(400);
      expect(res.body, base).toEqual({
        error: 'validation_failed',
        message: expect.any(String),
        details: [
          { path: 'model.base', message: `"${base}" is not a starpo-tiny size: starpo-tiny/nano, starpo-tiny/tiny or starpo-tiny/small` },
        ],
      });
    }
    expect(await t.db.run.count()).toBe(0);
  });

  it('accepts shipped bases, a random init, the team own base models and folders under a root', async () => {
    for (const base of ['starpo-base/sokoban-tiny', 'starpo-tiny/nano', 'our-base', `${root}/qwen`, `${root}/a/../b`]) {
      await launch(base).expect(201);
    }
  });
});
