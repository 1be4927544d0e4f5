'use client';
import { useState } from 'react';

/** A read-only value shown once (a token, an invite link) with a copy button. */
export function CopyField({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="copy-field">
      <label>
        {label}
        <input readOnly value={value} data-testid={testId} onFocus={(e) => e.target.select()} />
      </label>
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard
            ?.writeText(value)
            .then(() => setCopied(true))
            .catch(() => setCopied(false))
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
