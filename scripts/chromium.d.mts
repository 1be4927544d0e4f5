export function chromiumPath(): string | null;
export const HEADLESS_ARGS: string[];
export const CHROMIUM_ARGS: string[];
