// The probe page: the default import, no configuration.
import { Conversation } from "promptfold";
import { show, summarize } from "./probe.js";
import events from "./session.js";

show(summarize(Conversation, events));
