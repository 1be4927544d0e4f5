// Types of settings-table.mjs for the tests that import it.
export declare const DOC: string;
export declare function settingsSection(): string;
export declare function withSection(doc: string): string;
