#!/usr/bin/env node
// `npm run diagnose -- <run-id>`: re-computes a run's reasoning diagnostics (see rediagnose.ts).
import { settingsOrExit } from '@starpo/contracts';
import { createDb, dbSettings } from '@starpo/db';
import { PhaseProgress } from '@starpo/trainer/progress';
import { rediagnoseRun } from './rediagnose.js';
import { loadDiagnoseDatabaseUrl } from './settings.js';

const runId = process.argv[2];
const url = settingsOrExit('diagnose', () => {
  dbSettings(); // the database package's own variables, checked before anything starts
  return loadDiagnoseDatabaseUrl();
});
if (!runId || !/^[0-9a-f-]{36}$/i.test(runId)) {
  console.error('usage: npm run diagnose -- <run-id>   (DATABASE_URL defaults to the embedded database of `npm start`)');
  process.exit(2);
}
const db = createDb(url);
const progress = new PhaseProgress();
try {
  if (!(await db.run.findUnique({ where: { id: runId }, select: { id: true } }))) {
    console.error(`run ${runId} not found`);
    process.exitCode = 1;
  } else {
    const r = await rediagnoseRun(db, runId, (done, total) => {
      if (done === 1) progress.phase('re-diagnosing', total);
      progress.update(done);
    });
    progress.stop();
    console.log(`${r.trajectories} trajectories in ${r.batches} step batches; ${r.hallucinated} hallucinated`);
  }
} finally {
  await db.$disconnect();
}
