// Bundling shim: zod re-exports ~45 locales through `z.locales`; this extension only ever uses
// English messages, which zod registers by itself. Replacing the index with English alone keeps
// ~250 KB of other locales out of every bundle (less to load at activation).
export { default as en } from 'zod/v4/locales/en.js';
