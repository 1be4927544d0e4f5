import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from './errors.filter.js';

/** Node's HTTP parser errors by code: the status and the error name of the API's one error shape. */
const PARSER_ERRORS: Record<string, { status: number; error: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    error: 'request_header_fields_too_large',
    message: 'the request line and headers exceed 16 KB (a long URL or a large cookie); shorten them',
  },
  HPE_URI_TOO_LONG: { status: 414, error: 'uri_too_long', message: 'the URL is too long' },
};

/**
 * Requests refused by Node's HTTP parser never reach Express (Node answers a bare 431 or 400):
 * answer them in the API's error shape too, then close the connection as Node does.
 */
export function answerClientErrorsInShape(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (err.code === 'ECONNRESET' && socket.destroyed)) return void socket.destroy();
    const known = PARSER_ERRORS[err.code ?? ''];
    const status = known?.status ?? 400;
    const body: ErrorBody = {
      error: known?.error ?? 'bad_request',
      message: known?.message ?? 'the request is not valid HTTP',
      details: [],
    };
    const json = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 414 ? 'URI Too Long' : 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  });
}
