'use client';
import { estimateRunSeconds, estimateSourceText, isPresetName, type RunConfig } from '@starpo/contracts';
import { useDurationEstimate } from '../lib/queries';

function roughDuration(s: number): string {
  if (s < 90) return `${Math.max(1, Math.round(s / 60))} min`;
  if (s < 2 * 3600) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} hours`;
  return `${Math.round(s / 86400)} days`;
}

/**
 * How long the run may take, before Launch, and what that figure rests on: the online workers' recent
 * steps of the preset, the last finished runs of it, or a fixed guess. A 100,000-step run says days.
 */
export function DurationEstimate({ config, preset }: { config: RunConfig; preset: string }) {
  const { data } = useDurationEstimate(isPresetName(preset) ? preset : null, config.model.base);
  // until the answer comes, and without a preset: the fixed figure, said as a guess
  const s = estimateRunSeconds(config, data);
  const long = s > 24 * 3600;
  const source = data ? estimateSourceText(data) : 'rough guess for two idle CPU cores';
  return (
    <p className={long ? 'warn-text' : 'muted'} data-testid="duration-estimate">
      Estimated duration: about {roughDuration(s)} ({config.training.steps} steps), <span data-testid="estimate-source">{source}</span>
      {data?.slowWorkers.length ? (
        <span className="warn-text" data-testid="estimate-slow-engine">
          {' '}
          · {data.slowWorkers.join(', ')} {data.slowWorkers.length === 1 ? 'runs' : 'run'} the slow engine (see Workers)
        </span>
      ) : null}
      {long ? '. Check the step count before launching.' : '.'}
    </p>
  );
}
