import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers.js';

/** A raw request on a socket: what Node's parser refuses never reaches Express. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('errors raised before the app handlers keep the error shape', () => {
  let t: TestApi;
  let port: number;
  beforeAll(async () => {
    t = await startTestApi();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('a URL over 16 KB is a 431 with {error, message, details}', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/envs/sokoban/preview?config=${'x'.repeat(17_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toEqual({
      error: 'request_header_fields_too_large',
      message: expect.stringMatching(/exceed 16 KB/),
      details: [],
    });
  });

  it('a request that is not HTTP is a 400 in the same shape', async () => {
    const answer = await raw(port, 'NONSENSE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1]!)).toEqual({
      error: 'bad_request',
      message: 'the request is not valid HTTP',
      details: [],
    });
  });
});
