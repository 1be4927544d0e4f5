'use client';
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';

let hooked = false;
/** Images in notes get an empty alt when their author gave none (screen readers then skip them). */
function addHooks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'IMG' && !node.hasAttribute('alt')) node.setAttribute('alt', '');
  });
}

/** Run notes as Markdown (GitHub flavour), sanitised: notes are written by any member and read by the whole team. */
export function Markdown({ text, testId }: { text: string; testId?: string }) {
  const html = useMemo(() => {
    const raw = marked.parse(text, { async: false, gfm: true, breaks: true });
    // DOMPurify needs a DOM; on the server the notes are not rendered yet (they load in the browser)
    if (typeof window === 'undefined') return '';
    addHooks();
    return DOMPurify.sanitize(raw, { USE_PROFILES: { html: true } });
  }, [text]);
  return <div className="markdown" data-testid={testId} dangerouslySetInnerHTML={{ __html: html }} />;
}
