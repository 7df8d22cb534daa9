/** The schema version this code writes. */
export const SCHEMA_VERSION = 3;
