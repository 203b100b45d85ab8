// The app's own worker script: the package's exports served by serveConversation (docs/worker.md,
// "Your own worker script").
import * as promptfold from "promptfold";
import { serveConversation } from "promptfold/worker";

serveConversation(promptfold);
