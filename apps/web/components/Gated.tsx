'use client';
import type { ReactNode } from 'react';

/**
 * A control shown disabled with the reason as its tooltip when the role may not use it.
 * The wrapper carries the tooltip because a disabled button gets no pointer events.
 */
export function Gated({ reason, children }: { reason: string | null; children: ReactNode }) {
  if (!reason) return <>{children}</>;
  return (
    <span className="gated" title={reason} data-testid="gated">
      {children}
    </span>
  );
}

/** A link-styled button that is disabled (not a link) when `reason` is set. */
export function GatedLink({
  href,
  reason,
  className = 'button',
  children,
  testId,
}: {
  href: string;
  reason: string | null;
  className?: string;
  children: ReactNode;
  testId?: string;
}) {
  if (!reason)
    return (
      <a className={className} href={href} data-testid={testId}>
        {children}
      </a>
    );
  return (
    <Gated reason={reason}>
      <a className={`${className} disabled`} aria-disabled="true" data-testid={testId}>
        {children}
      </a>
    </Gated>
  );
}
