// A module worker that imports the package and posts the probe's result.
import { Conversation } from "promptfold";
import { summarize } from "./probe.js";
import events from "./session.js";

postMessage(summarize(Conversation, events));
