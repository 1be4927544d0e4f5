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

/** Answers shorter than this go as they are: compressing them saves less than a packet. */
const GZIP_MIN_CHARS = 1400;

/**
 * Sends the answer with its ETag and type: the text, or its cached gzip when the client accepts it
 * (every browser does). The dashboard revalidates (`no-cache`) and gets a 304 while nothing changed:
 * Express answers 304 by itself when the request's If-None-Match names the ETag set here. Sent with
 * Express's own `send` (a Buffer as it is), not returned through Nest, which would stream a Buffer.
 */
export function sendMetrics(res: Response, answer: MetricsAnswer, format: MetricsQuery['format'], csvName: string): void {
  res.setHeader('ETag', answer.etag);
  res.setHeader('Cache-Control', 'private, no-cache');
  res.vary('Accept-Encoding');
  if (format === 'csv') res.type('text/csv').attachment(csvName);
  else res.type('application/json');
  if (answer.body === null || answer.body.length < GZIP_MIN_CHARS || !/\bgzip\b/.test(String(res.req.headers['accept-encoding'] ?? ''))) {
    res.send(answer.body ?? '');
    return;
  }
  res.setHeader('Content-Encoding', 'gzip');
  res.send(answer.gzipped());
}
