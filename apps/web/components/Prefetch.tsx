import { headers } from 'next/headers';
import { apiBase } from '../lib/api-base';
import { PREFETCH_GLOBAL } from '../lib/prefetch';

/**
 * Starts GET requests from the HTML itself, while the page's scripts still download and hydrate; the
 * client's `call` then takes the response in flight instead of asking again (lib/prefetch.ts). Bodies
 * are read as they arrive: a response nobody reads yet would otherwise stall in the browser's pipe.
 * Paths are JSON-encoded with `<` escaped, so nothing from the URL can close the script tag.
 */
export async function Prefetch({ paths }: { paths: string[] }) {
  if (!paths.length) return null;
  const nonce = (await headers()).get('x-nonce') ?? undefined; // the page's policy runs no inline script without it (proxy.ts)
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
  const code =
    `(function(b,p){var c=window.${PREFETCH_GLOBAL}=window.${PREFETCH_GLOBAL}||{};` +
    `p.forEach(function(x){c[x]=fetch(b+x,{credentials:'include'}).then(function(r){return r.text().then(function(t){` +
    `return new Response(r.status===204?null:t,{status:r.status,statusText:r.statusText,headers:r.headers})})})})})` +
    `(${json(apiBase())},${json(paths)})`;
  return <script nonce={nonce} dangerouslySetInnerHTML={{ __html: code }} />;
}
