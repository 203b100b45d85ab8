// The demo's worker: the package's worker (promptfold/worker, worker/serve.js) over the web build,
// with the vendored zstd decoder for compressed files (scripts/demo.sh copies all three).
import * as promptfold from './pkg/index.js';
import * as fzstd from './vendor/fzstd.mjs';
import { serveConversation } from './worker/serve.js';

serveConversation(promptfold, { zstd: fzstd });
