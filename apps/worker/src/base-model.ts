import { MODEL_BASE_REFUSED, classifyModelBase, realFolderUnderRoots, type Db } from '@starpo/db';
import { baseWeightsChecksum, loadBaseModel, shippedBaseDir, type ModelBundle } from '@starpo/trainer';
import { materializeBaseModel } from './pretrain-job.js';

/**
 * A run's `model.base`, loaded within its sandbox (classifyModelBase): a shipped base, a random
 * init, a base model of the run's team, or a folder whose real path lies under MODEL_ROOTS. Errors
 * say neither whether a path exists nor what a file holds; the loader's own message (which can
 * name files and quote them) goes to the operator's log only.
 */
export async function loadRunBase(
  db: Db,
  teamId: string,
  base: string,
  seed: number,
): Promise<{ bundle: ModelBundle; sha: string | null }> {
  const ref = await classifyModelBase(db, teamId, base);
  if (!ref) throw new Error(`model.base "${base}" is ${MODEL_BASE_REFUSED}`);
  if (ref.kind === 'scratch' || ref.kind === 'shipped') {
    const dir = shippedBaseDir(base);
    return { bundle: loadBaseModel(base, seed), sha: baseWeightsChecksum(dir) };
  }
  const stored = ref.kind === 'stored' ? await materializeBaseModel(db, teamId, base) : null;
  const dir = ref.kind === 'stored' ? (stored?.dir ?? null) : realFolderUnderRoots(ref.dir);
  try {
    if (!dir)
      throw new Error(
        ref.kind === 'stored' ? 'its pretraining has stored no weights yet' : 'not a folder under MODEL_ROOTS once links are followed',
      );
    return { bundle: loadBaseModel(dir, seed), sha: baseWeightsChecksum(dir) };
  } catch (e) {
    console.error(`worker: base model "${base}" did not load: ${e instanceof Error ? e.message : String(e)}`);
    throw new Error(`model.base "${base}" could not be loaded as a saved base model or a Hugging Face checkpoint`);
  } finally {
    stored?.cleanup(); // the weights are in memory now
  }
}
