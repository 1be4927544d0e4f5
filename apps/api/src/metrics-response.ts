import { toMetricColumns, type MetricsQuery, type RunMetricSeries } from '@starpo/contracts';
import type { Response } from 'express';
import { seriesCsv, type MetricsAnswer } from './metrics.service.js';

/**
 * Renders series in the asked format, as the text that is sent and kept by ETag; `withRunId` false
 * for one run's route, which names the run in its path.
 */
export function renderMetrics(series: RunMetricSeries[], format: MetricsQuery['format'], withRunId: boolean): string {
  if (format === 'csv') return seriesCsv(series);
  const rows = format === 'columns' ? toMetricColumns(series) : series;
  return JSON.stringify(withRunId ? rows : rows.map(({ runId: _, ...r }) => r));
}

/**
 * Sets the answer's ETag and type, and returns the text to send. The dashboard revalidates
 * (`no-cache`) and gets a 304 while nothing changed: Express answers 304 by itself when the
 * request's If-None-Match names the ETag set here (the body is then empty and not sent).
 */
export function sendMetrics(res: Response, answer: MetricsAnswer, format: MetricsQuery['format'], csvName: string): string {
  res.setHeader('ETag', answer.etag);
  res.setHeader('Cache-Control', 'private, no-cache');
  if (format === 'csv') res.type('text/csv').attachment(csvName);
  else res.type('application/json');
  return answer.body ?? '';
}
